"""Which sessions to read again (pure): the session refs grouped by session, each session's
current branch, and the rows whose tips or branch no longer match."""

from collections.abc import Mapping

from git_teddy.artifacts.names import MAIN_BRANCH
from git_teddy.index.rows import SessionIndex, tips_cell


def group_session_refs(refs: Mapping[str, str], prefix: str) -> dict[str, dict[str, str]]:
    """session id -> branch -> tip, grouped as SessionStore._all_branches does: sessions
    fetched from a remote (`refs/remotes/<remote>/<prefix>...`) count too, and a local
    branch wins over a fetched one."""
    sessions: dict[str, dict[str, str]] = {}
    for name in sorted((n for n in refs if n.startswith("refs/remotes/")), reverse=True):
        _remote, _, rest = name.removeprefix("refs/remotes/").partition("/")
        if rest.startswith(prefix):
            _add_branch(sessions, rest.removeprefix(prefix), refs[name])
    local = f"refs/heads/{prefix}"
    start = len(local)
    for name, tip in refs.items():
        if name.startswith(local):
            session, _, branch = name[start:].partition("/")
            if branch and "/" not in branch:
                sessions.setdefault(session, {})[branch] = tip
    return sessions


def _add_branch(sessions: dict[str, dict[str, str]], path: str, tip: str) -> None:
    session, _, branch = path.partition("/")
    if branch and "/" not in branch:
        sessions.setdefault(session, {})[branch] = tip


def current_branch(branches: Mapping[str, str], marker: str | None) -> str:
    """The branch a session continues on (as SessionStore.current_branch decides): the one
    last chosen here when it still exists, else main (else the first, for a session known
    only by other branches)."""
    if marker in branches:
        return str(marker)
    return MAIN_BRANCH if MAIN_BRANCH in branches or not branches else min(branches)


def stale_sessions(
    index: SessionIndex, sessions: Mapping[str, Mapping[str, str]], currents: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    """Sessions to read again (new, moved, or continuing on another branch) and sessions
    whose refs are gone."""
    rows = index.sessions
    changed = [
        session
        for session, tips in sessions.items()
        if session not in rows
        or rows[session].tips != tips_cell(tips)
        or rows[session].branch != currents[session]
    ]
    return changed, [session for session in index.sessions if session not in sessions]
