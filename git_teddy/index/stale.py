"""Which sessions to read again (pure): the rows whose tips or current branch no longer match
the session refs (grouped by session.refnames, current branches chosen by gitstore.layout)."""

from collections.abc import Mapping

from git_teddy.index.rows import SessionIndex, tips_cell


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
