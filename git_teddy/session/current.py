"""The current session of a worktree, like HEAD: each worktree records the session it works
in, in its own git dir (gitstore.layout `teddy-session`), never in the common dir all
worktrees share. `new`, `start`, `resume`, `branch` and an explicit `-s` set it; a command
without `-s` uses it, never another worktree's.

A worktree that recorded none (a repository from before this rule, a new linked worktree)
falls back to the most recent local session that is not current in another worktree, and
records it: from then on it stays put, whatever other worktrees or a fetch bring. A fetched
session (a teammate's, with no local branch) is never current until the user names it
(`-s ID`, `resume ID`), which is said. A recorded session that no longer exists is an error,
never silently replaced by another.

Standard library and gitstore's stdlib modules at run time: `git teddy list` reads the
worktrees' records through here without loading the session store."""

import contextlib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from git_teddy.errors import TeddyError
from git_teddy.gitstore import plumbing
from git_teddy.gitstore.layout import read_worktree_session
from git_teddy.session.refnames import REMOTES, branches_prefix

if TYPE_CHECKING:
    from git_teddy.gitstore import GitRepo

CHOOSE = (
    "start a session here with `git teddy new NAME`, or work on one of `git teddy list` with "
    "`-s ID` (or `git teddy resume ID`), which makes it this worktree's current session"
)


class NoCurrentSession(TeddyError):
    """The worktree recorded no session, and none is left to fall back to."""


class CurrentSessionGone(TeddyError):
    """The worktree's recorded session no longer exists."""


class TakenUp(NamedTuple):
    """A session a command made this worktree's current one (`-s`, `resume`, `branch`)."""

    session: str
    changed: bool  # it was not current here before
    remotes: list[str]  # where it was fetched from, when it has no local branch: a teammate's
    elsewhere: list[Path]  # other worktrees where it is current too


def recorded(repo: "GitRepo") -> str | None:
    """The session this worktree recorded as current, None when none."""
    return read_worktree_session(repo.git_dir)


def record(repo: "GitRepo", session: str) -> bool:
    """Make `session` this worktree's current session; True when that changed anything."""
    if recorded(repo) == session:
        return False
    try:
        repo.layout.write_worktree_session(repo.git_dir, session)
    except OSError as failed:
        raise TeddyError(
            f"could not record {session} as this worktree's current session: {failed}",
            f"name the session with `-s {session}` on each command meanwhile",
        ) from None
    return True


def fallback(repo: "GitRepo", local: Mapping[str, int]) -> str:
    """For a worktree that recorded none: the most recent of the `local` sessions (id ->
    last active) that no other worktree works in, recorded now as this one's."""
    held = held_elsewhere(repo)
    chosen = most_recent_free(local, held)
    if chosen is None:
        busy = f" (the others' are current in other worktrees: {', '.join(sorted(held))})"
        raise NoCurrentSession(
            "this worktree has no current session" + (busy if held else ""), CHOOSE
        )
    with contextlib.suppress(TeddyError):  # read-only: the same rule picks it next time
        record(repo, chosen)
    return chosen


def most_recent_free(local: Mapping[str, float], held: Collection[str]) -> str | None:
    """The fallback rule: the most recent of the `local` sessions (id -> last active) not
    `held` by another worktree (ties: the greatest id); None when every one is."""
    free = [session for session in local if session not in held]
    return max(free, key=lambda session: (local[session], session)) if free else None


def gone(session: str) -> CurrentSessionGone:
    return CurrentSessionGone(
        f"this worktree's current session {session} no longer exists (deleted, or made "
        "under another teddy.refPrefix), so nothing was done",
        CHOOSE,
    )


def worktree_sessions(cwd: Path, common_dir: Path) -> list[tuple[Path, Path, str]]:
    """(worktree folder, its git dir, its current session) of every worktree that records
    one: one `git worktree list` and a file read per worktree."""
    found = []
    for worktree in plumbing.worktrees(cwd, common_dir):
        session = read_worktree_session(worktree.git_dir)
        if session is not None:
            found.append((worktree.folder, worktree.git_dir, session))
    return found


def held_elsewhere(repo: "GitRepo") -> dict[str, Path]:
    """session -> the other worktree it is current in (the first, when several)."""
    here = repo.git_dir.resolve()
    held: dict[str, Path] = {}
    for folder, git_dir, session in worktree_sessions(repo.cwd, repo.common_dir):
        if git_dir.resolve() != here:
            held.setdefault(session, folder)
    return held


def fetched_from(repo: "GitRepo", prefix: str, session: str) -> list[str]:
    """The remotes `session` was fetched from when it has no local branch (a teammate's
    session, not continued here yet); [] when it has one."""
    if repo.list_refs(f"{branches_prefix(prefix)}{session}/"):
        return []
    # One remote at a time: a glob over refs/remotes/ would read every remote branch.
    return [
        remote
        for remote in repo.remotes()
        if plumbing.list_refs(repo.cwd, f"{REMOTES}{remote}/{prefix}{session}/")
    ]


def take_up(repo: "GitRepo", prefix: str, session: str) -> TakenUp:
    """Make `session` (named by the user) this worktree's current session, and say what that
    means when it is new here: whose it is, and which worktrees work in it too."""
    if not record(repo, session):
        return TakenUp(session, False, [], [])
    held = held_elsewhere(repo)
    elsewhere = [held[session]] if session in held else []
    return TakenUp(session, True, fetched_from(repo, prefix, session), elsewhere)


def taken_up_lines(taken: TakenUp, branch_ref: str) -> list[str]:
    """What the user is told when a command made a session current (`branch_ref`: where
    its next turns go)."""
    lines = []
    branch = branch_ref.removeprefix("refs/heads/")
    if taken.changed and taken.remotes:
        where = ", ".join(taken.remotes)
        lines.append(
            f"note: {taken.session} is a teammate's session (fetched from {where}); it is now "
            f"this worktree's current session: its next turns go on your local branch "
            f"{branch}, and reach {taken.remotes[0]} only when you `git teddy push` it"
        )
    elif taken.changed:
        lines.append(f"note: {taken.session} is now this worktree's current session")
    for folder in taken.elsewhere:
        lines.append(f"note: it is the current session of the worktree {folder} too")
    return lines


def marks(
    cwd: Path, git_dir: Path, common_dir: Path, sessions: Collection[str]
) -> tuple[str | None, dict[str, list[Path]]]:
    """For `list`: this worktree's current session (None when it recorded none), and the
    worktrees each of `sessions` is current in ({} while only this worktree has one: a
    single checkout needs no WORKTREE column)."""
    here = git_dir.resolve()
    mine, others = None, False
    where: dict[str, list[Path]] = {}
    for folder, wt_git_dir, session in worktree_sessions(cwd, common_dir):
        if session in sessions:
            where.setdefault(session, []).append(folder)
            if wt_git_dir.resolve() == here:
                mine = session
            else:
                others = True
    return mine, where if others else {}
