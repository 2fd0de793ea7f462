"""git-teddy: pair-programming with AI models where everything is git history."""

__version__ = "0.1.0"
