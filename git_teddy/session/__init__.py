"""Sessions: naming rules and models (pure), and the store that keeps them in git."""
