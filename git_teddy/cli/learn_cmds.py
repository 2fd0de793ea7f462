"""`git teddy codify|learn`: workflows and training cases from session logs (in progress)."""

import click

from git_teddy.errors import TeddyError


@click.command()
def codify() -> None:
    """A workflow from a session (not built yet)."""
    raise TeddyError("codify is not built yet", "see issue 7")


@click.command()
def learn() -> None:
    """Training cases from sessions (not built yet)."""
    raise TeddyError("learn is not built yet", "see issue 7")
