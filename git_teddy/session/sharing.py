"""`git teddy push` and `git teddy fetch`: sessions travel as their branches and snapshot refs,
nothing else, and only when asked."""

from dataclasses import dataclass

from git_teddy.errors import TeddyError
from git_teddy.session.refnames import (
    branch_ref,
    branches_prefix,
    fetched_prefix,
    snapshot_ref,
    snapshots_prefix,
)
from git_teddy.session.workspace import Workspace
from git_teddy.settings import REMOTE


@dataclass(frozen=True)
class Transfer:
    remote: str
    sessions: list[str]
    output: str


def _remote(ws: Workspace, remote: str | None) -> str:
    name = remote or ws.settings.text(REMOTE)
    if name not in ws.repo.remote_names():
        raise TeddyError(
            f"no remote named {name!r}",
            "add one with `git remote add <name> <url>`, or name it: `git teddy push <remote>`",
        )
    return name


def push_sessions(ws: Workspace, remote: str | None, sessions: list[str]) -> Transfer:
    """Push the named sessions (default: every local session): branches and snapshots."""
    store, prefix = ws.store, ws.store.prefix
    name = _remote(ws, remote)
    chosen = [store.resolve_session(s) for s in sessions] or store.local_session_ids()
    if not chosen:
        raise TeddyError("there are no local sessions to push", "start one with `git teddy new`")
    refspecs = []
    for session in chosen:
        for ref in (branch_ref(prefix, session, "*"), snapshot_ref(prefix, session, "*")):
            refspecs.append(f"{ref}:{ref}")
    pushed = ws.repo.push_refs(name, refspecs)
    output = pushed.stdout + pushed.stderr
    if not pushed.ok:
        if "[rejected]" in output or "non-fast-forward" in output or "fetch first" in output:
            raise TeddyError(
                f"{name} has turns of these sessions that you do not have; nothing was overwritten",
                f"run `git teddy fetch {name}`, then go on from their latest turn (it shows in "
                "`git teddy log`) or keep yours on a branch: `git teddy branch <turn> -m ...`",
            )
        raise TeddyError(
            f"git push to {name} failed:\n{output.strip()}",
            "check the remote's URL and your access to it",
        )
    return Transfer(name, chosen, output)


def fetch_sessions(ws: Workspace, remote: str | None) -> Transfer:
    """Bring a remote's sessions in under refs/remotes/<remote>/ (snapshots beside ours:
    their names are their ids, so they never clash)."""
    prefix = ws.store.prefix
    name = _remote(ws, remote)
    before = set(ws.store.session_ids())
    refspecs = [
        f"+{branches_prefix(prefix)}*:{fetched_prefix(name, prefix)}*",
        f"{snapshots_prefix(prefix)}*:{snapshots_prefix(prefix)}*",
    ]
    fetched = ws.repo.fetch_refs(name, refspecs)
    if not fetched.ok:
        raise TeddyError(
            f"git fetch from {name} failed:\n{fetched.stderr.strip()}",
            "check the remote's URL and your access to it",
        )
    sessions = sorted(set(ws.store.session_ids()) - before)
    return Transfer(name, sessions, fetched.stdout + fetched.stderr)
