"""`git teddy restore` and `git teddy branch`: travel in a session's history, and the
saved states of the user's files they (and `execute`) keep.

Restoring changes only the user's files (HEAD, branch and index untouched), and never loses
anything: the current state is saved as a snapshot first, and the command says how to get it
back. A file whose content is neither HEAD's nor one a turn wrote is the user's own (written
by hand, or put back from one of their saved states): it is only overwritten or removed with
--force, and is saved even then. While files are being placed, a marker in the derived state
names the saved state, so the next command tells the user about it if this one was killed.
"""

import contextlib
import re
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from git_teddy.artifacts.folder import TURN_RECORD
from git_teddy.artifacts.turn_base import base_snapshot
from git_teddy.errors import ConcurrentUpdateError, TeddyError
from git_teddy.faultpoint import reached
from git_teddy.gitstore import snapshot_worktree
from git_teddy.gitstore.layout import Placing
from git_teddy.gitstore.snapshot import base_of_session, session_root
from git_teddy.printable import quote_path
from git_teddy.session.current import NoCurrentSession
from git_teddy.session.models import iso_time
from git_teddy.session.steering import steering_file, typed
from git_teddy.session.store import SAVED_STATE_SUBJECT, SessionStore, TurnRef, is_saved_state
from git_teddy.session.workspace import Workspace

if TYPE_CHECKING:
    from git_teddy.gitstore.apply import Change

# Restoring loads gitstore.apply and session.turns (and through it the redactor) when it
# places files: `diff`, which asks this module for a turn's snapshot alone, does without.

HEX = re.compile(r"[0-9a-f]{7,64}")  # an abbreviated id, SHA-1 (40) or SHA-256 (64)
SHORT = 12  # digits of a snapshot id shown to the user
NAMED = 5  # hand-written files named in a refusal
BASE_NAMES = ("base", "00")  # a session's starting state, before its first turn


@dataclass(frozen=True)
class Placed:
    saved: str  # the user's state before, kept by the session's keep ref (session.keep)
    changed: list[str]
    notes: list[str]  # submodules left as they are (GitlinkNote lines), for the user


@dataclass(frozen=True)
class Restored:
    session: str
    target: str  # the snapshot the working tree now holds
    saved: str  # the user's state before, kept by the session's keep ref (session.keep)
    turn: str | None
    branch: str | None  # the conversation branch the session continues on
    fork: str | None  # else the turn the next plan forks a new branch from
    changed: list[str]
    notes: list[str]  # submodules left as they are (GitlinkNote lines), for the user


@dataclass(frozen=True)
class SavedState:
    """A snapshot of the user's own files, taken before teddy changed them."""

    sha: str
    time: str
    what: str  # e.g. "restoring 01"


def turn_snapshot(store: SessionStore, ref: TurnRef) -> str:
    """The project state a turn ended with (its report's snapshot)."""
    snapshot = store.turn_result(ref)
    if snapshot is not None:
        return snapshot
    raise TeddyError(
        f"turn {ref.turn} has not been executed, so it has no project state to restore",
        "execute it with `git teddy execute`, or restore an earlier turn",
    )


def is_base(spec: str) -> bool:
    """Whether `spec` names a session's base (`base`, `00`, `SESSION/base`)."""
    return spec.rpartition("/")[2] in BASE_NAMES


def base_of(store: SessionStore, session: str) -> str:
    """The snapshot a session started from (its root commit's), before any turn."""
    tip = store.branches(session)[store.current_branch(session)]
    root = session_root(store.repo, tip)
    base = base_of_session(root)
    if base is None:
        raise TeddyError(
            f"session {session} records no base snapshot (its first commit, {root.sha[:SHORT]},"
            " has no Teddy-Snapshot trailer)",
            "restore one of its turns, or a snapshot `git teddy saved` lists",
        )
    return base


def _resolve_target(
    store: SessionStore, spec: str, session: str | None
) -> tuple[str, str, TurnRef | None]:
    """(session, snapshot, turn) for a turn (`01`, `SESSION/01`), the base (`base`, `00`)
    or a kept snapshot id."""
    if is_base(spec):
        named, _, _ = spec.rpartition("/")
        session_id = store.resolve_session(named or session)
        return session_id, base_of(store, session_id), None
    try:
        ref = store.resolve_turn(spec, session)
        return ref.session, turn_snapshot(store, ref), ref
    except TeddyError:
        if not HEX.fullmatch(spec):
            raise
    session_id, sha = _find_snapshot(store, spec, session)
    return session_id, sha, None


def _find_snapshot(store: SessionStore, spec: str, session: str | None) -> tuple[str, str]:
    """(session, snapshot) for a snapshot id or prefix: in `session` (-s), else in this
    worktree's current session first, then in the others (local ones first: a state two
    sessions keep, such as the base they both started from, is restored in yours)."""
    try:
        first = store.resolve_session(session)
    except NoCurrentSession:
        first = None
    order = [first] if first else []
    if session is None:
        local = set(store.local_session_ids())
        rest = sorted(set(store.session_ids()) - set(order), key=lambda s: (s not in local, s))
        order += rest
    for sid in order:
        shas = {sha for sha in store.snapshots(sid) if sha.startswith(spec)}
        if len(shas) == 1:
            return sid, shas.pop()
        if shas:
            raise TeddyError(
                f"{spec!r} is ambiguous: session {sid} keeps {len(shas)} snapshots starting so",
                "give more of the snapshot id",
            )
    where = f"session {session}" if session else "any session"
    raise TeddyError(
        f"{spec!r} is neither a turn nor a snapshot of {where}",
        "give a turn such as 01, or a snapshot id that `git teddy saved` lists",
    )


def _teddy_wrote(ws: Workspace, session: str) -> set[tuple[str, str, str]]:
    """(path, mode, blob) of every file a turn of the session wrote (its result against
    its base): content teddy put there, not the user."""
    from git_teddy.gitstore.apply import tree_changes

    store, repo = ws.store, ws.repo
    wrote: set[tuple[str, str, str]] = set()
    for commit in store.turn_commits(session):
        if commit.phase != "report" or not commit.snapshot:
            continue
        tree = repo.read_commit(commit.commit).tree
        record = repo.read_file(tree, f"{commit.turn}/{TURN_RECORD}")
        base = base_snapshot(record)  # None for a damaged turn.yaml: passed over
        if not base or not repo.object_exists(base) or not repo.object_exists(commit.snapshot):
            continue
        for change in tree_changes(repo, base, commit.snapshot):
            if change.writes:
                wrote.add((change.path, change.new_mode, change.new_blob))
    return wrote


def hand_written(ws: Workspace, session: str, saved: str, target: str) -> list[str]:
    """The files placing `target` would overwrite or remove whose content in `saved` (the
    user's files now) is the user's own: neither HEAD's nor one a turn wrote."""
    from git_teddy.gitstore.apply import tree_changes

    at_stake = [c for c in tree_changes(ws.repo, saved, target) if _had_file(c)]
    head = ws.repo.head_commit()
    if head and at_stake:
        differ = {c.path for c in tree_changes(ws.repo, head, saved)}
        at_stake = [c for c in at_stake if c.path in differ]
    if not at_stake:
        return []
    wrote = _teddy_wrote(ws, session)
    mine = [c for c in at_stake if (c.path, c.old_mode, c.old_blob) not in wrote]
    held = _held_by_a_snapshot(ws, session, saved, [c.path for c in mine]) if mine else set()
    return [c.path for c in mine if c.path not in held]


def _held_by_a_snapshot(ws: Workspace, session: str, saved: str, paths: list[str]) -> set[str]:
    """Those of `paths` whose content in `saved` a snapshot of the session holds as it is
    (a turn's base or result; the user's saved states left out, their content is theirs):
    kept there, it is teddy's to replace. A project without commits, or in a merge, has
    files that differ from HEAD in every base snapshot (issue 26)."""
    from git_teddy.gitstore.apply import tree_changes

    held: set[str] = set()
    for snapshot in ws.store.snapshots(session):
        info = ws.repo.read_commit(snapshot)
        if is_saved_state(info):
            continue
        differ = {c.path for c in tree_changes(ws.repo, saved, snapshot)}
        held.update(path for path in paths if path not in differ)
        if len(held) == len(paths):
            break
    return held


def _had_file(change: "Change") -> bool:
    return change.old_mode not in ("000000", "160000")


def _save_user_files(
    ws: Workspace, session: str, label: str, parent: str | None, paths: list[str] | None = None
) -> str:
    """The user's files kept as a saved state of its own (`git teddy saved` lists it), even
    when they are exactly `parent`'s (a turn's result just applied): the id the command
    prints is one `saved` shows (issue 26). With `paths` (and a `parent`), those alone."""
    from git_teddy.gitstore.saved_paths import snapshot_paths

    subject = f"{SAVED_STATE_SUBJECT}{label}"
    saved = (
        snapshot_paths(ws.repo, subject, parent, paths, always=True)
        if paths is not None and parent is not None
        else snapshot_worktree(ws.repo, subject, parent, always=True)
    )
    ws.store.keep_snapshot(session, saved)
    return saved


def place_snapshot(
    ws: Workspace, session: str, target: str, label: str, force: bool, step: str
) -> Placed:
    """Put `target` in the working tree: the current files are saved first, and without
    `force` the user's own files are never overwritten. `step` names the command for the
    fault points (`restore`, `branch`). The caller tells the user the saved id, then calls
    `told_saved_state`; until then a killed run is told by the next command."""
    from git_teddy.gitstore.apply import CannotApply, apply_to_worktree
    from git_teddy.gitstore.saved_paths import saved_paths
    from git_teddy.session.turns import current_snapshot

    store, layout = ws.store, ws.repo.layout
    # A saved state of some paths (execute's, undo's) puts back those paths alone: the
    # current ones are saved on top of it, so nothing else differs (issue 31 item 2).
    paths = saved_paths(ws.repo.read_commit(target).message)
    if paths is None:
        parent = current_snapshot(store, session, store.current_branch(session))
    else:
        parent = target
    saved = _save_user_files(ws, session, label, parent, paths)
    layout.write_placing(session, saved, label)
    reached(f"{step}.saved")
    back = restore_command(session, saved)
    try:
        mine = [] if force else hand_written(ws, session, saved, target)
        if mine:
            quoted = [quote_path(path, ws.repo.quotes_paths()) for path in mine[:NAMED]]
            named = ", ".join(quoted) + (
                f" and {len(mine) - NAMED} more" if len(mine) > NAMED else ""
            )
            raise TeddyError(
                f"your working tree has changes that {label} would overwrite: {named}",
                f"they are saved as snapshot {saved[:SHORT]}; run again with --force to go "
                f"ahead (and `{back}` to get them back)",
            )
        result = apply_to_worktree(ws.repo, saved, target, saved)
    except (TeddyError, CannotApply):
        layout.clear_placing(session)  # nothing was placed: the error says what to do
        raise
    reached(f"{step}.placed")
    return Placed(saved, result.changed_paths, [note.line() for note in result.gitlinks])


def told_saved_state(ws: Workspace, session: str) -> None:
    """The user has been told where their files are saved: no note for the next command."""
    ws.repo.layout.clear_placing(session)


def restore_command(session: str, saved: str) -> str:
    return f"git teddy restore -s {shlex.quote(session)} {saved[:SHORT]}"


def interrupted_note(placing: Placing) -> str:
    """What the next command says about a `restore`/`branch` that was killed."""
    return (
        f"note: an interrupted `git teddy` ({placing.what}, session {placing.session}) had "
        f"saved your files as snapshot {placing.saved[:SHORT]}; to get them back: "
        f"{restore_command(placing.session, placing.saved)}"
    )


def restore_turn(ws: Workspace, spec: str, session: str | None, force: bool) -> Restored:
    session_id, target, ref = _resolve_target(ws.store, spec, session)
    placed = place_snapshot(ws, session_id, target, f"restoring {spec}", force, "restore")
    branch = ws.store.continue_after(ref) if ref else None
    turn = ref.turn if ref else None
    fork = turn if ref and branch is None else None
    what = f"turn {turn}'s result" if turn else f"snapshot {spec}"
    _record_steering(ws, session_id, spec, f"put your files as {what}, yours saved first")
    return Restored(
        session_id, target, placed.saved, turn, branch, fork, placed.changed, placed.notes
    )


def _record_steering(ws: Workspace, session: str, spec: str, did: str) -> None:
    """The restore in the session's log (a `[!user]` callout), on the branch it continues
    on when that branch is the user's own (a fetched session is only read). A commit that
    races another is left out: the files are restored, only the note is missing."""
    store = ws.store
    branch = store.current_branch(session)
    if store.repo.read_ref(store.branch_ref(session, branch)) is None:
        return
    files = steering_file(store, session, branch, typed("restore", spec), did)
    trailers = {"Teddy-Session": session, "Teddy-Phase": "restore"}
    with contextlib.suppress(ConcurrentUpdateError):
        store.commit_files(session, branch, files, f"teddy: restore {spec}", trailers)


def saved_states(store: SessionStore, session: str) -> list[SavedState]:
    """The session's snapshots of the user's own files, newest first."""
    states = []
    for sha in store.snapshots(session):
        commit = store.repo.read_commit(sha)
        if is_saved_state(commit):
            subject = commit.message.splitlines()[0]
            what = subject.removeprefix(SAVED_STATE_SUBJECT)
            states.append(
                (
                    commit.timestamp,
                    SavedState(sha, iso_time(commit.timestamp, commit.tz_offset), what),
                )
            )
    return [
        state for _, state in sorted(states, key=lambda pair: (pair[0], pair[1].sha), reverse=True)
    ]
