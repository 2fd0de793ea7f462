"""Gathering a session for its review page: each turn's files as the session commits hold
them, its record, its report and its change (review/html.py renders the result).

Only committed session content is read, so what `plan` and `execute` redacted stays
redacted; the project's change between two snapshots is redacted the same way, since the
page may go to someone who has no access to the repository.
"""

from git_teddy.artifacts.folder import (
    CONTEXT_LOG,
    PLAN,
    REPORT,
    SESSION_FILE_LIMIT,
    TURN_RECORD,
    USER_PROMPT,
)
from git_teddy.artifacts.report import ExecutionReport, parse_report
from git_teddy.artifacts.turn_record import TurnRecord, read_record
from git_teddy.artifacts.yamlio import Unreadable
from git_teddy.errors import TeddyError
from git_teddy.gitstore import GitRepo
from git_teddy.gitstore.changes import CutBlob
from git_teddy.redact import redact
from git_teddy.review.html import SessionPage, TurnPage
from git_teddy.session.models import TurnCommit
from git_teddy.session.store import SessionStore
from git_teddy.session.views import shown_text


def read_session_page(store: SessionStore, session: str) -> SessionPage:
    """The page of `session`: its log, every turn across its branches, their changes."""
    problem = None
    try:
        log = store.read_log(session)
    except TeddyError as error:
        log, problem = None, error.message  # a damaged log: the turns are still worth showing
    commits = store.turn_commits(session)
    results = {c.turn: c.snapshot for c in commits if c.phase == "report" and c.snapshot}
    latest = store.turns(session, commits)
    names_by_id = {c.id: c.turn for c in latest if c.id}
    branches = store.branches(session)
    trees = {name: store.repo.read_commit(tip).tree for name, tip in branches.items()}
    present = [c for c in latest if trees.get(c.branch)]  # a turn whose branch is gone: {}
    folders_read = [(trees[c.branch], c.turn) for c in present]
    read = store.repo.read_folders(folders_read, SESSION_FILE_LIMIT)  # larger files: cut
    by_turn = {c.turn: files for c, files in zip(present, read, strict=True)}
    folders = [by_turn.get(c.turn, {}) for c in latest]
    records = [_record(files.get(TURN_RECORD)) for files in folders]
    changes = _changes(
        store.repo,
        [(record, results.get(c.turn)) for record, c in zip(records, latest, strict=True)],
    )
    planners = _planners(store, commits)
    turns = [
        _turn(c, files, record, change, names_by_id, planners.get(c.turn))
        for c, files, record, change in zip(latest, folders, records, changes, strict=True)
    ]
    executed = [c.snapshot for c in commits if c.phase == "report" and c.snapshot]
    first = next((record for record in records if record), None)
    whole = _whole_change(store.repo, first, executed[-1] if executed else None)
    return SessionPage(session, log, turns, sorted(branches), problem, whole)


def _whole_change(repo: GitRepo, first: TurnRecord | None, last: str | None) -> str | None:
    """The session's change as one patch: the first turn's base to the newest result."""
    if first is None or last is None or _no_change(repo, first, last) is not None:
        return None
    patch, _ = redact(repo.diff_texts([(first.base_snapshot, last)])[0])
    return patch or None


def _turn(
    commit: TurnCommit,
    files: dict[str, bytes],
    record: TurnRecord | None,
    change: tuple[str | None, str | None],
    names_by_id: dict[str, str],
    author: str | None,
) -> TurnPage:
    parent_id = record.parent_id if record else commit.parent_id
    return TurnPage(
        name=commit.turn,
        branch=commit.branch,
        parent=names_by_id.get(parent_id) if parent_id else None,
        agent=commit.agent or (record.agent if record else "?"),
        model=commit.model,
        status=commit.status or "planned",
        message=_text(files.get(USER_PROMPT)),
        plan=_text(files.get(PLAN)),
        context=_text(files.get(CONTEXT_LOG)),
        report=_report(files.get(REPORT)),
        report_note=_report_note(files.get(REPORT)),
        tokens_in=record.tokens_in if record else commit.tokens_in,
        tokens_out=record.tokens_out if record else commit.tokens_out,
        cost=record.cost if record else commit.cost,
        diff=change[0],
        diff_note=change[1],
        author=author,
        landed_in=tuple(commit.landed_in),
    )


def _planners(store: SessionStore, commits: list[TurnCommit]) -> dict[str, str]:
    """Who planned each turn: the name its plan commit's author has (the email left out)."""
    planners = {}
    for commit in commits:
        if commit.phase == "plan":
            author = store.repo.read_commit(commit.commit).author
            planners[commit.turn] = author.split(" <", 1)[0].strip() or author
    return planners


def _text(data: bytes | None) -> str:
    return shown_text(data) if data is not None else ""


def _report_note(data: bytes | None) -> str | None:
    """Why a report is not shown, when it is too large to read."""
    if not isinstance(data, CutBlob):
        return None
    return f"not shown: report.md holds {data.size} bytes, more than git-teddy reads ({len(data)})"


def _record(data: bytes | None) -> TurnRecord | None:
    try:
        return read_record(None if isinstance(data, CutBlob) else data)
    except Unreadable:
        return None  # damaged: the page shows what the commits' trailers say


def _report(data: bytes | None) -> ExecutionReport | None:
    try:
        return parse_report(data) if data and not isinstance(data, CutBlob) else None
    except Unreadable:
        return None


def _changes(
    repo: GitRepo, turns: list[tuple[TurnRecord | None, str | None]]
) -> list[tuple[str | None, str | None]]:
    """For each turn (its record, its result), the patch from its base to its result, or
    why there is none; the patches come from one git process."""
    notes: list[str | None] = [_no_change(repo, record, result) for record, result in turns]
    pairs = [
        (record.base_snapshot, result)
        for (record, result), note in zip(turns, notes, strict=True)
        if note is None and record and result
    ]
    patches = iter(repo.diff_texts(pairs))
    changes: list[tuple[str | None, str | None]] = []
    for note in notes:
        if note is not None:
            changes.append((None, note))
            continue
        patch, _ = redact(next(patches))
        changes.append((patch, None) if patch else (None, "no changes to the project"))
    return changes


def _no_change(repo: GitRepo, record: TurnRecord | None, result: str | None) -> str | None:
    """Why a turn has no patch to show, or None when it has one to compute."""
    if result is None:
        return "not executed yet: no changes"
    if record is None:
        return "its turn.yaml cannot be read, so its base is unknown"
    if not (repo.object_exists(record.base_snapshot) and repo.object_exists(result)):
        return "its snapshots are not in this repository (fetch with `git teddy fetch`)"
    return None
