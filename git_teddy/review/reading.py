"""Gathering a session for its review page: each turn's files as the session commits hold
them, its record, its report and its change (review/html.py renders the result).

Only committed session content is read, so what `plan` and `execute` redacted stays
redacted; the project's change between two snapshots is redacted the same way, since the
page may go to someone who has no access to the repository.
"""

from git_teddy.artifacts.folder import CONTEXT_LOG, PLAN, REPORT, TURN_RECORD, USER_PROMPT
from git_teddy.artifacts.report import ExecutionReport, parse_report
from git_teddy.artifacts.turn_record import TurnRecord
from git_teddy.artifacts.yamlio import Unreadable
from git_teddy.errors import TeddyError
from git_teddy.gitstore import GitRepo
from git_teddy.redact import redact
from git_teddy.review.html import SessionPage, TurnPage
from git_teddy.session.models import TurnCommit
from git_teddy.session.store import SessionStore, TurnRef


def read_session_page(store: SessionStore, session: str) -> SessionPage:
    """The page of `session`: its log, every turn across its branches, their changes."""
    try:
        log = store.read_log(session)
    except TeddyError:
        log = None  # a hand-edited log: the turns are still worth showing
    commits = store.turn_commits(session)
    results = {c.turn: c.snapshot for c in commits if c.phase == "report" and c.snapshot}
    latest = store.turns(session)
    names_by_id = {c.id: c.turn for c in latest if c.id}
    turns = [
        _turn(store, TurnRef(session, c.turn, c.branch), c, results, names_by_id) for c in latest
    ]
    return SessionPage(session, log, turns, sorted(store.branches(session)))


def _turn(
    store: SessionStore,
    ref: TurnRef,
    commit: TurnCommit,
    results: dict[str, str],
    names_by_id: dict[str, str],
) -> TurnPage:
    files = store.turn_files(ref)
    record = _record(files.get(TURN_RECORD))
    report = _report(files.get(REPORT))
    diff, note = _change(store.repo, record, results.get(ref.turn))
    parent_id = record.parent_id if record else commit.parent_id
    return TurnPage(
        name=ref.turn,
        branch=ref.branch,
        parent=names_by_id.get(parent_id) if parent_id else None,
        agent=commit.agent or (record.agent if record else "?"),
        model=commit.model,
        status=commit.status or "planned",
        message=_text(files.get(USER_PROMPT)),
        plan=_text(files.get(PLAN)),
        context=_text(files.get(CONTEXT_LOG)),
        report=report,
        tokens_in=record.tokens_in if record else commit.tokens_in,
        tokens_out=record.tokens_out if record else commit.tokens_out,
        cost=record.cost if record else commit.cost,
        diff=diff,
        diff_note=note,
    )


def _text(data: bytes | None) -> str:
    return data.decode("utf-8", "replace") if data is not None else ""


def _record(data: bytes | None) -> TurnRecord | None:
    try:
        return TurnRecord.from_yaml(data) if data else None
    except Unreadable:
        return None  # damaged: the page shows what the commits' trailers say


def _report(data: bytes | None) -> ExecutionReport | None:
    try:
        return parse_report(data) if data else None
    except Unreadable:
        return None


def _change(
    repo: GitRepo, record: TurnRecord | None, result: str | None
) -> tuple[str | None, str | None]:
    """(the patch from the turn's base to its result, or why there is none)."""
    if result is None:
        return None, "not executed yet: no changes"
    if record is None:
        return None, "its turn.yaml cannot be read, so its base is unknown"
    if not (repo.object_exists(record.base_snapshot) and repo.object_exists(result)):
        return None, "its snapshots are not in this repository (fetch with `git teddy fetch`)"
    patch, _ = redact(repo.diff_text(record.base_snapshot, result))
    return (patch, None) if patch else (None, "no changes to the project")
