"""`python -m git_teddy`: the same as the `git-teddy` executable."""

from git_teddy.cli.main import run

run()
