"""`git teddy add` and `git teddy drop`: the user's edits to the context (planning/steer.py)."""

from typing import TYPE_CHECKING

import click

from git_teddy.cli.chosen import SESSION_HELP, session_for
from git_teddy.session.workspace import open_workspace

if TYPE_CHECKING:  # imported with the command's body: `git teddy -h` stays fast
    from git_teddy.planning.steer import Edited

_SESSION = click.option("-s", "--session", help=SESSION_HELP)
_GLOBAL = click.option(
    "--global",
    "team",
    is_flag=True,
    help="Edit .teddy/global.context in the working tree (for every session; commit it).",
)
_ITEMS = click.argument("items", nargs=-1, required=True, metavar="PATH|GLOB|URL...")


def _said(verb: str, edited: "Edited") -> None:
    listed = ", ".join(edited.entries)
    commit = f" (commit {edited.commit[:12]})" if edited.commit else ""
    click.echo(f"{verb} {listed}: {edited.where}{commit}")
    if edited.commit is None:
        click.echo("commit .teddy/global.context to share it with your team")


@click.command()
@_SESSION
@_GLOBAL
@_ITEMS
def add(session: str | None, team: bool, items: tuple[str, ...]) -> None:
    """Add files, globs or URLs to the session's context (a session commit); with --global,
    to .teddy/global.context. Paths are from the current directory, as git's (a leading `/`
    names one from the top); the context itself lists them from the top. Quote globs."""
    from git_teddy.planning.steer import add_context

    ws = open_workspace()
    _said("added", add_context(ws, session_for(ws, session), list(items), team))


@click.command()
@_SESSION
@_GLOBAL
@_ITEMS
def drop(session: str | None, team: bool, items: tuple[str, ...]) -> None:
    """Drop entries from the session's context (a session commit; an entry the global
    context or the model's list gives is excluded for the session until added or READ
    again); with --global, from .teddy/global.context. Paths are from the current directory,
    as in `add`."""
    from git_teddy.planning.steer import drop_context

    ws = open_workspace()
    _said("dropped", drop_context(ws, session_for(ws, session), list(items), team))
