"""Reviewing sessions as a teammate would: each turn's change as a git diff, and a session
as one static page (diffs.py resolves what to compare, reading.py gathers a session,
html.py renders it)."""
