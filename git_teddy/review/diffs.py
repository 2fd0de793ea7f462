"""What `git teddy diff` compares: a turn's change (its base snapshot to its result), two
turns' or two conversation branches' results, or the user's own edits a result was merged
with; each as two snapshot ids, for git's own `git diff`.

A turn's base is the snapshot its turn.yaml names (the user's files when it was planned);
its result is the `Teddy-Snapshot` of its report commit (SessionStore.turn_result).
"""

import shlex
from dataclasses import dataclass

from git_teddy.artifacts.folder import REPORT, SESSION_FILE_LIMIT, TURN_RECORD
from git_teddy.artifacts.turn_base import base_snapshot
from git_teddy.errors import TeddyError
from git_teddy.session.models import TurnCommit, iso_time, turn_commit_from_message
from git_teddy.session.store import SessionStore, TurnRef


@dataclass(frozen=True)
class DiffEnds:
    """Two snapshots to compare, old first."""

    session: str
    old: str
    new: str


def diff_ends(store: SessionStore, spec: str, applied: bool = False) -> DiffEnds:
    """`[SESSION/]TURN`, or `[SESSION/]A..B` where A and B are turns or conversation
    branches (a branch stands for its newest result); `applied`: the user's edits the
    turn's result was merged with, instead of the turn's change."""
    session_spec, _, rest = spec.rpartition("/")
    session = store.resolve_session(session_spec or None)
    if ".." in rest:
        if applied:
            raise TeddyError(
                "--applied takes one turn, not a range",
                f"give one turn: `git teddy diff --applied {shlex.quote(rest.partition('..')[0])}`",
            )
        left, _, right = rest.partition("..")
        if not left or not right:
            raise TeddyError(
                f"{spec!r} is not a range of two turns",
                "write TURN..TURN or BRANCH..BRANCH, such as `01..03` or `02-branch-01..main`",
            )
        return DiffEnds(
            session, _result_of(store, session, left), _result_of(store, session, right)
        )
    ref = store.resolve_turn(rest, session)
    if applied:
        saved = _saved_when_applied(store, ref)
        return DiffEnds(session, turn_base(store, ref), saved)
    return DiffEnds(session, turn_base(store, ref), _executed(store, ref))


def turn_base(store: SessionStore, ref: TurnRef) -> str:
    """The snapshot a turn was planned on (its turn.yaml's base)."""
    base = base_snapshot(store.turn_file(ref, TURN_RECORD, SESSION_FILE_LIMIT))
    if base is None:
        raise store.damaged(
            ref.session, ref.branch, f"{ref.turn}/{TURN_RECORD}", "no base snapshot"
        )
    return base


def _report_says_applied(store: SessionStore, ref: TurnRef) -> bool:
    """Whether the turn's report says its result was applied (cleanly, or with conflicts)."""
    from git_teddy.artifacts.report import parse_report  # pydantic's report: --applied only

    data = store.turn_file(ref, REPORT, SESSION_FILE_LIMIT)
    try:
        applied = parse_report(data).run_summary.applied if data else False
    except ValueError:  # a damaged report: not known to be applied
        return False
    return applied is True or (isinstance(applied, str) and applied.startswith("conflicts"))


def _executed(store: SessionStore, ref: TurnRef) -> str:
    snapshot = store.turn_result(ref)
    if snapshot is None:
        raise TeddyError(
            f"turn {ref.turn} of session {ref.session} has no report yet, so it changed nothing",
            f"execute it with `git teddy execute`, or see its plan: `git teddy show "
            f"{shlex.quote(f'{ref.session}/{ref.turn}')}`",
        )
    return snapshot


def _result_of(store: SessionStore, session: str, name: str) -> str:
    """The result of a turn, or the newest result on a conversation branch (a branch's
    first turn has the branch's name: in a range, the branch is meant)."""
    branches = store.branches(session)
    if name in branches:
        newest = _newest_result(store, branches[name], session)
        if newest is None:
            raise TeddyError(
                f"branch {name} of session {session} has no executed turn",
                "execute its turn first, or compare turns that have reports",
            )
        return newest
    return _executed(store, store.resolve_turn(name, session))


def _newest_result(store: SessionStore, tip: str, session: str) -> str | None:
    for info in store.repo.first_parent_history(tip):
        commit: TurnCommit | None = turn_commit_from_message(
            info.message, info.sha, iso_time(info.timestamp, info.tz_offset)
        )
        if commit and commit.session == session and commit.phase == "report" and commit.snapshot:
            return commit.snapshot
    return None


def _saved_when_applied(store: SessionStore, ref: TurnRef) -> str:
    """The user's files execute saved before applying the turn's result: the edits of
    theirs the result was merged with (its subject names the turn)."""
    _executed(store, ref)  # a turn without a report was never applied: say that first
    saved = store.saved_before_applying(ref.session, ref.turn)
    if saved is not None:
        return saved
    if _report_says_applied(store, ref):
        # execute keeps a state of its own only when the user's files differ from the base:
        # applied onto them unchanged, there were no edits of theirs (issue 26)
        return turn_base(store, ref)
    raise TeddyError(
        f"turn {ref.turn} of session {ref.session} was not applied to your files, so there"
        " were no edits of yours to merge it with",
        f"see what the turn changed: `git teddy diff {shlex.quote(f'{ref.session}/{ref.turn}')}`",
    )
