"""`git teddy restore` and `git teddy branch`: travel in a session's history.

Restoring changes only the user's files (HEAD, branch and index untouched), and never loses
anything: the current state is saved as a snapshot first, and the command says how to get it
back. Files the user changed by hand since teddy last put them there are only overwritten
with --force (and are saved even then).
"""

import re
from dataclasses import dataclass
from pathlib import Path

from git_teddy.artifacts.folder import TURN_RECORD
from git_teddy.artifacts.turn_record import base_snapshot
from git_teddy.errors import TeddyError, in_the_way
from git_teddy.gitstore.apply import apply_to_worktree
from git_teddy.session.store import SAVED_STATE_SUBJECT, SessionStore, TurnRef
from git_teddy.session.turns import current_snapshot
from git_teddy.session.workspace import Workspace

HEX = re.compile(r"[0-9a-f]{7,64}")  # an abbreviated id, SHA-1 (40) or SHA-256 (64)


@dataclass(frozen=True)
class Placed:
    saved: str  # the user's state before, kept under refs/teddy/snapshots
    changed: list[str]
    notes: list[str]  # submodules left as they are (GitlinkNote lines), for the user


@dataclass(frozen=True)
class Restored:
    session: str
    target: str  # the snapshot the working tree now holds
    saved: str  # the user's state before, kept under refs/teddy/snapshots
    turn: str | None
    branch: str | None  # the conversation branch the session continues on
    changed: list[str]
    notes: list[str]  # submodules left as they are (GitlinkNote lines), for the user


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


def _placed_log(ws: Workspace, session: str) -> Path:
    """Snapshots restore put in the working tree (local state, never pushed)."""
    layout = ws.repo.layout
    path = layout.placed_log(session)
    layout.shared.make_folders(path.parent)
    if path.is_dir():
        raise in_the_way(path, "the list of snapshots `restore` placed")
    return path


def _placed(log: Path) -> list[str]:
    """The snapshot ids the placed log holds; anything else in it (damage) is passed over."""
    try:
        words = log.read_text("utf-8", "replace").split()
    except FileNotFoundError:
        return []
    return [word for word in words if HEX.fullmatch(word)]


def _hand_edited(ws: Workspace, session: str, saved: str) -> bool:
    """Whether the user's files differ from HEAD and from every state teddy put there or
    started a turn from: the session's base, each turn's start and result, and restores."""
    store, repo = ws.store, ws.repo
    known = {store.summary(session).base_snapshot, repo.head_commit()}  # HEAD: nothing uncommitted
    for commit in store.turn_commits(session):
        known.add(commit.snapshot)
        record = store.repo.read_file(
            repo.read_commit(commit.commit).tree, f"{commit.turn}/{TURN_RECORD}"
        )
        known.add(base_snapshot(record))
    log = _placed_log(ws, session)
    known.update(_placed(log))
    trees = {repo.read_commit(sha).tree for sha in known if sha and repo.object_exists(sha)}
    return repo.read_commit(saved).tree not in trees


def place_snapshot(ws: Workspace, session: str, target: str, label: str, force: bool) -> Placed:
    """Put `target` in the working tree: the current files are saved first, and without
    `force` files changed by hand are never overwritten."""
    store = ws.store
    parent = current_snapshot(store, session, store.current_branch(session))
    saved = store.take_snapshot(session, f"{SAVED_STATE_SUBJECT}{label}", parent)
    if not force and _hand_edited(ws, session, saved):
        raise TeddyError(
            f"your working tree has changes that {label} would overwrite",
            f"they are saved as snapshot {saved[:12]}; run again with --force to go ahead "
            f"(and `git teddy restore -s {session} {saved[:12]}` to get them back)",
        )
    result = apply_to_worktree(ws.repo, saved, target, saved)
    log_path = _placed_log(ws, session)
    with log_path.open("a") as log:
        log.write(target + "\n")
    ws.repo.layout.shared.adjust(log_path)
    return Placed(saved, result.changed_paths, [note.line() for note in result.gitlinks])


def restore_turn(ws: Workspace, spec: str, session: str | None, force: bool) -> Restored:
    session_id, target, ref = _resolve_target(ws.store, spec, session)
    placed = place_snapshot(ws, session_id, target, f"restoring {spec}", force)
    branch = ws.store.continue_after(ref) if ref else None
    turn = ref.turn if ref else None
    return Restored(session_id, target, placed.saved, turn, branch, placed.changed, placed.notes)
