"""`git teddy undo`: the user's files as they were before the last applied turn.

What `execute` applied is known exactly: the state it saved before applying (`your files
before applying turn NN`, or the turn's base when that was the same), and the files it put
in place (the turn's result, or that result merged with the saved state, merged again here
the same way). Undo moves the user's files from that applied state back to the saved one:
byte for byte when nothing moved since; when the user edited files after applying, their
edits are merged in as `git stash pop` merges (kept where they do not overlap the turn's
change; a text conflict gets markers, any other keeps the user's version). Either way the
current versions of the paths it writes are saved first (those alone, gitstore.saved_paths:
the user's other files are neither read nor touched), and the command says how to get them
back: undo is itself undone by `restore`. Each undo is a session commit (`Teddy-Phase:
undo`, `Teddy-Undone`), so a second undo takes back the turn applied before that one.

A result teddy.autoCommit committed is taken off the branch with the files while that
commit is HEAD and unpushed (the branch back to its parent, the index entries of its paths
with it); otherwise undo refuses before changing anything and names the `git revert`.
"""

from dataclasses import dataclass

from git_teddy.artifacts.folder import REPORT, TURN_RECORD
from git_teddy.artifacts.report import RunSummary, parse_report
from git_teddy.artifacts.trailers import parse_trailers
from git_teddy.artifacts.turn_base import base_snapshot
from git_teddy.errors import TeddyError
from git_teddy.faultpoint import reached
from git_teddy.gitstore.apply import (
    CannotApply,
    applied_tree,
    apply_to_worktree,
    changes_between_trees,
    tree_changes,
)
from git_teddy.gitstore.saved_paths import snapshot_paths
from git_teddy.gitstore.usercommit import is_pushed, uncommit
from git_teddy.session.claims import claim_session
from git_teddy.session.models import TurnCommit
from git_teddy.session.steering import steering_file, typed
from git_teddy.session.store import SAVED_STATE_SUBJECT, SessionStore
from git_teddy.session.workspace import Workspace

UNDO_PHASE = "undo"
UNDONE_TRAILER = "Teddy-Undone"
SHORT = 12  # digits of a commit id shown


@dataclass(frozen=True)
class Applied:
    """A turn `execute` applied to the user's files, and the states around it."""

    turn: str
    before: str  # the user's files before applying (a snapshot)
    after_tree: str  # the tree applying put in the working tree
    committed: str | None  # the commit teddy.autoCommit made of it


@dataclass(frozen=True)
class Undone:
    session: str
    turn: str
    saved: str  # the user's files before the undo, kept by the session's keep ref
    changed: list[str]
    conflicts: list[str]
    merged: bool  # the files had moved on since applying: a three-way merge
    notes: list[str]  # submodules left as they are (GitlinkNote lines)
    uncommitted: str | None  # the auto-commit of the turn taken off the branch


def undone_turns(store: SessionStore, session: str) -> set[str]:
    """The turns an earlier `undo` of the session took back (its undo commits)."""
    undone: set[str] = set()
    for tip in store.branches(session).values():
        for info in store.repo.first_parent_history(tip):
            trailers = parse_trailers(info.message)
            if trailers.get("Teddy-Phase") == UNDO_PHASE and UNDONE_TRAILER in trailers:
                undone.add(trailers[UNDONE_TRAILER])
    return undone


def _applied(store: SessionStore, report: TurnCommit) -> RunSummary | None:
    """The run summary of a turn whose result was applied to the user's files, else None."""
    text = store.read_session_file(report.commit, f"{report.turn}/{REPORT}")
    if text is None:
        return None
    summary = parse_report(text).run_summary
    applied = summary.applied
    if applied is True or (isinstance(applied, str) and applied.startswith("conflicts")):
        return summary
    return None


def last_applied(store: SessionStore, session: str) -> Applied:
    """The turn applied last and not undone yet, with what applying it did."""
    undone = undone_turns(store, session)
    reports = [c for c in store.turn_commits(session) if c.phase == "report" and c.snapshot]
    for report in reversed(reports):
        summary = None if report.turn in undone else _applied(store, report)
        if summary is None:
            continue
        tree = store.repo.read_commit(report.commit).tree
        base = base_snapshot(store.repo.read_file(tree, f"{report.turn}/{TURN_RECORD}"))
        if base is None or report.snapshot is None:
            continue  # a damaged turn.yaml: its states are not known
        before = store.saved_before_applying(session, report.turn) or base
        label = f"turn {report.turn}"  # as execute labelled the merge
        after = applied_tree(store.repo, base, report.snapshot, before, label)
        return Applied(report.turn, before, after, summary.committed)
    applied_any = any(r.turn in undone for r in reports)
    raise TeddyError(
        f"nothing to undo: no turn of session {session} is applied to your files"
        + (" (every applied turn was undone already)" if applied_any else ""),
        "`git teddy saved` lists the states of your files teddy kept, and "
        "`git teddy restore SNAPSHOT` brings one back",
    )


def preview(ws: Workspace, session: str) -> tuple[str, list[str]]:
    """The turn undo would take back and the files it would change (nothing written)."""
    applied = last_applied(ws.store, session)
    before_tree = ws.repo.read_commit(applied.before).tree
    changes = changes_between_trees(ws.repo, applied.after_tree, before_tree)
    return applied.turn, [c.path for c in changes]


def _commit_to_remove(ws: Workspace, applied: Applied) -> str | None:
    """The auto-commit of the turn when undo takes it back with the files (HEAD, unpushed);
    None when there is none, or it is no longer in HEAD's history (the user took it back).
    A TeddyError with the `git revert` to run when it cannot be removed."""
    commit, repo = applied.committed, ws.repo
    head = repo.head_commit()
    if commit is None or head is None or not repo.object_exists(commit):
        return None
    if head != commit and not repo.descends_from(head, commit):
        return None
    why = (
        "commits came after it"
        if head != commit
        else "it is pushed"
        if is_pushed(repo, commit)
        else "it is the first commit"
        if not repo.read_commit(commit).parents
        else None
    )
    if why is None:
        return commit
    raise TeddyError(
        f"turn {applied.turn} was committed as {commit[:SHORT]} and {why}: undo removes only "
        "an unpushed last commit",
        f"take it back with a new commit: `git revert {commit[:SHORT]}`",
    )


def undo_last(ws: Workspace, session: str) -> Undone:
    """Take back the last applied turn of `session` (see the module's docstring), holding
    the session as `plan` and `execute` do: no turn is applied meanwhile."""
    with claim_session(ws.store, session, "undo"):
        return _undo_last(ws, session)


def _undo_last(ws: Workspace, session: str) -> Undone:
    store, repo = ws.store, ws.repo
    applied = last_applied(store, session)
    remove = _commit_to_remove(ws, applied)
    label = f"undoing turn {applied.turn}"
    # The applied state as a commit: the merge base of the user's files now and the
    # state to go back to, which are both made on top of it.
    after = repo.write_commit(
        applied.after_tree, [], f"teddy: your files after applying turn {applied.turn}"
    )
    # Only the paths undo writes are saved (and read): the user's other files stay theirs.
    # A state of its own even when those are as applied: `after` holds none of the user's
    # other files, and restoring it whole would take them back too.
    before_tree = repo.read_commit(applied.before).tree
    writes = [c.path for c in changes_between_trees(repo, applied.after_tree, before_tree)]
    saved = snapshot_paths(repo, f"{SAVED_STATE_SUBJECT}{label}", after, writes, always=True)
    store.keep_snapshot(session, saved)
    repo.layout.write_placing(session, saved, label)
    reached("undo.saved")
    back = repo.write_commit(before_tree, [after], f"teddy: turn {applied.turn} undone")
    if remove:  # the branch and index first: a killed run leaves the files to undo again
        parent = repo.read_commit(remove).parents[0]
        uncommit(repo, remove, [c.path for c in tree_changes(repo, parent, remove)])
        reached("undo.uncommitted")
    try:
        result = apply_to_worktree(repo, after, back, saved, f"before turn {applied.turn}")
    except CannotApply:
        repo.layout.clear_placing(session)
        raise
    reached("undo.placed")
    trailers = {"Teddy-Session": session, "Teddy-Phase": UNDO_PHASE, UNDONE_TRAILER: applied.turn}
    branch = store.current_branch(session)
    did = f"put your files back as they were before turn {applied.turn} was applied"
    steered = steering_file(store, session, branch, typed("undo"), did)
    store.commit_files(session, branch, steered, f"teddy: undo turn {applied.turn}", trailers)
    notes = [note.line() for note in result.gitlinks]
    return Undone(
        session,
        applied.turn,
        saved,
        result.changed_paths,
        result.conflicts,
        result.merged,
        notes,
        remove,
    )
