"""Which session a command works on, as the CLI says it (session.current): this worktree's
current session, or the one `-s` names, which becomes current; a session taken up that way
that is a teammate's, or current in another worktree too, is said on stderr."""

import click

from git_teddy.printable import printable
from git_teddy.session import current
from git_teddy.session.workspace import Workspace

SESSION_HELP = (
    "Session id or prefix, made this worktree's current session (default: the current one)."
)
LOOK_HELP = "Session id or prefix (default: this worktree's current session); only looked at."


def session_for(ws: Workspace, spec: str | None) -> str:
    """The session `-s SPEC` names (made current here), else this worktree's current one."""
    session = ws.store.resolve_session(spec)
    if spec is not None:
        make_current(ws, session)
    return session


def make_current(ws: Workspace, session: str) -> None:
    """Record `session` as this worktree's current session, saying what that means."""
    taken = current.take_up(ws.repo, ws.store.prefix, session)
    if not taken.changed:
        return
    where = ws.store.branch_ref(session, ws.store.current_branch(session))
    for line in current.taken_up_lines(taken, where):
        click.echo(printable(line), err=True)  # a teammate's names, shown escaped
