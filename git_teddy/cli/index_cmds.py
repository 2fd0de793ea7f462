"""`git teddy list|stats|index`: questions over many sessions (work in progress)."""

import click

from git_teddy.cli.session_cmds import echo_json
from git_teddy.errors import TeddyError
from git_teddy.session import views
from git_teddy.workspace import open_workspace


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of sessions.")
def list_sessions(as_json: bool) -> None:
    """List sessions: id, status, start time, number of turns."""
    sessions = list(open_workspace().store.iter_sessions())
    if as_json:
        echo_json([s.model_dump() for s in sessions])
    else:
        click.echo(views.session_table(sessions))


@click.command()
def stats() -> None:
    """Aggregate figures over sessions (not built yet)."""
    raise TeddyError("stats is not built yet", "see issue 7")


@click.command()
def index() -> None:
    """The session index (not built yet)."""
    raise TeddyError("index is not built yet", "see issue 7")
