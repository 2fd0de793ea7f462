"""`git teddy restore` and `git teddy branch`: travel in a session's history.

Restoring changes only the user's files (HEAD, branch and index untouched), and never loses
anything: the current state is saved as a snapshot first, and the command says how to get it
back. Files the user changed by hand since teddy last put them there are only overwritten
with --force (and are saved even then).
"""

import re
from dataclasses import dataclass
from pathlib import Path

from git_teddy.errors import TeddyError
from git_teddy.gitstore.apply import apply_to_worktree
from git_teddy.session.store import SessionStore, TurnRef
from git_teddy.turns import current_snapshot
from git_teddy.workspace import Workspace

HEX = re.compile(r"[0-9a-f]{7,40}")


@dataclass(frozen=True)
class Restored:
    session: str
    target: str  # the snapshot the working tree now holds
    saved: str  # the user's state before, kept under refs/teddy/snapshots
    turn: str | None
    branch: str | None  # the conversation branch the session continues on
    changed: list[str]


def _placed_marker(store: SessionStore, session: str) -> Path:
    """The last snapshot restore put in the working tree (local state, never pushed)."""
    folder = store.repo.derived_dir() / "sessions" / session
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "placed"


def turn_snapshot(store: SessionStore, ref: TurnRef) -> str:
    """The project state a turn ended with (its report's snapshot)."""
    for commit in reversed(store.turn_commits(ref.session)):
        if commit.turn == ref.turn and commit.phase == "report" and commit.snapshot:
            return commit.snapshot
    raise TeddyError(
        f"turn {ref.turn} has not been executed, so it has no project state to restore",
        "execute it with `git teddy execute`, or restore an earlier turn",
    )


def _resolve_target(
    store: SessionStore, spec: str, session: str | None
) -> tuple[str, str, TurnRef | None]:
    """(session, snapshot, turn) for a turn (`01`, `SESSION/01`) or a kept snapshot id."""
    try:
        ref = store.resolve_turn(spec, session)
        return ref.session, turn_snapshot(store, ref), ref
    except TeddyError:
        if not HEX.fullmatch(spec):
            raise
    session_id = store.resolve_session(session)
    matches = [sha for sha in store.snapshots(session_id) if sha.startswith(spec)]
    if len(matches) != 1:
        raise TeddyError(
            f"{spec!r} is neither a turn nor a snapshot of session {session_id}",
            "give a turn such as 01, or a snapshot id that `git teddy restore` printed",
        )
    return session_id, matches[0], None


def _hand_edited(ws: Workspace, session: str, saved: str) -> bool:
    """Whether the user's files differ from every state teddy itself put there."""
    store, repo = ws.store, ws.repo
    placed = {current_snapshot(store, session, store.current_branch(session))}
    marker = _placed_marker(store, session)
    if marker.exists():
        placed.add(marker.read_text().strip())
    trees = {repo.read_commit(sha).tree for sha in placed if repo.object_exists(sha)}
    return repo.read_commit(saved).tree not in trees


def restore(ws: Workspace, spec: str, session: str | None, force: bool) -> Restored:
    store = ws.store
    session_id, target, ref = _resolve_target(store, spec, session)
    parent = current_snapshot(store, session_id, store.current_branch(session_id))
    saved = store.take_snapshot(session_id, f"teddy: your files before restoring {spec}", parent)
    if not force and _hand_edited(ws, session_id, saved):
        raise TeddyError(
            "your working tree has changes that restoring would overwrite",
            f"they are saved as snapshot {saved[:12]}; run again with --force to restore anyway "
            f"(and `git teddy restore {saved[:12]}` to get them back)",
        )
    result = apply_to_worktree(ws.repo, saved, target, saved)
    _placed_marker(store, session_id).write_text(target + "\n")
    branch = store.continue_after(ref) if ref else None
    turn = ref.turn if ref else None
    return Restored(session_id, target, saved, turn, branch, result.changed_paths)
