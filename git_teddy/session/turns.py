"""A turn's life in the session store: its plan commit, then its report commit.

Planning writes the turn folder (`plan.md`, `user_prompt.txt`, `turn.context`, `turn.yaml`)
in one commit; executing adds `report.md` and the final `turn.yaml` in a second commit on the
same branch. Both carry the `Teddy-*` trailers (docs/architecture.md, "The git mapping").
"""

from dataclasses import dataclass

from git_teddy.artifacts.context_list import GLOBAL_CONTEXT, after_report, entry_of, rewrite
from git_teddy.artifacts.folder import PLAN, REPORT, SESSION_CONTEXT, TURN_RECORD
from git_teddy.artifacts.report import parse_report
from git_teddy.artifacts.trailers import parse_trailers
from git_teddy.artifacts.turn_record import TurnRecord
from git_teddy.errors import ConcurrentUpdateError, TeddyError
from git_teddy.redact import MARKER_PREFIX, redact
from git_teddy.session.store import SessionStore

SUBJECT_TITLE_MAX = 60  # characters of a plan's title in its commit's subject


@dataclass(frozen=True)
class PendingTurn:
    session: str
    branch: str
    turn: str
    record: TurnRecord
    plan_text: str


def current_snapshot(store: SessionStore, session: str, branch: str) -> str:
    """The project state the branch has reached: the newest snapshot along its history."""
    tip = store.branches(session)[branch]
    for info in store.repo.first_parent_history(tip):
        snapshot = parse_trailers(info.message).get("Teddy-Snapshot")
        if snapshot:
            return snapshot
    raise TeddyError(f"session {session} records no snapshot", "start a new session")


def pending_turn(store: SessionStore, session: str, branch: str) -> PendingTurn | None:
    """The turn on `branch` whose plan has no report yet, if any."""
    trailers = store.last_turn_trailers(session, branch)
    if trailers.get("Teddy-Phase") != "plan":
        return None
    turn = trailers["Teddy-Turn"]
    tip = store.branches(session)[branch]
    record = store.read_record(session, branch, tip, turn)
    plan = store.repo.read_file(store.repo.read_commit(tip).tree, f"{turn}/{PLAN}")
    if record is None:
        raise store.damaged(session, branch, f"{turn}/{TURN_RECORD}", "it is missing", tip)
    if plan is None:
        raise store.damaged(session, branch, f"{turn}/{PLAN}", "it is missing", tip)
    try:
        text = plan.decode("utf-8")
    except UnicodeDecodeError as error:
        problem = f"it is not UTF-8 text (byte {error.start})"
        raise store.damaged(session, branch, f"{turn}/{PLAN}", problem, tip) from None
    return PendingTurn(session, branch, turn, record, text)


def ensure_no_pending(store: SessionStore, session: str, branch: str) -> None:
    """Spec 000's guard: a plan without a report must be executed before the next plan."""
    pending = pending_turn(store, session, branch)
    if pending:
        raise TeddyError(
            f"turn {pending.turn} has a plan that has not been executed yet",
            "run `git teddy execute` first (a plan without a report must be executed), "
            "or drop it with `git teddy discard`",
        )


def snapshot_for_next_turn(store: SessionStore, session: str, branch: str) -> str:
    """The project state the next turn starts from: the user's files as they are now (hand
    edits included, so the model sees the real state), on top of the branch's snapshot."""
    parent = current_snapshot(store, session, branch)
    turn = store.next_turn(session, branch)
    return store.take_snapshot(session, f"teddy: state before turn {turn}", parent)


def previous_record(store: SessionStore, session: str, branch: str) -> TurnRecord | None:
    """turn.yaml of the last turn on `branch`, if it has one."""
    turn = store.last_turn_trailers(session, branch).get("Teddy-Turn")
    tip = store.branches(session)[branch]
    return store.read_record(session, branch, tip, turn) if turn else None


def record_plan(
    store: SessionStore,
    session: str,
    branch: str,
    files: dict[str, bytes],
    agent: str,
    base: str,
    usage: dict[str, object] | None = None,
    since: str | None = None,
    title: str = "",
) -> TurnRecord:
    """Commit a new turn's plan on `branch`: `files` go in the turn folder (with turn.yaml);
    the commit's subject names the plan's `title`.
    `usage` may give `model`, `tokens_in`, `tokens_out` and `cost`. `since` is the branch
    tip the turn was planned from: if the branch has moved since, ConcurrentUpdateError
    (the turn's number, parent and history would be another turn's)."""
    if since is not None and store.branches(session).get(branch) != since:
        raise ConcurrentUpdateError(
            f"another commit reached the branch {branch} of {session} first",
            "run your command again",
        )
    ensure_no_pending(store, session, branch)
    tip = store.last_turn_trailers(session, branch)
    turn = store.next_turn(session, branch)
    record = TurnRecord.model_validate(
        {
            "id": store.turn_id(session, turn),
            "parent_id": tip.get("Teddy-Id"),
            "session": session,
            "turn": turn,
            "branch": branch,
            "agent": agent,
            "base_snapshot": base,
            "planned_at": store.now().isoformat(),
            **(usage or {}),
        }
    )
    turn_files = {f"{turn}/{name}": data for name, data in files.items()}
    turn_files[f"{turn}/{TURN_RECORD}"] = record.to_yaml()
    subject = plan_subject(turn, title)
    store.commit_files(session, branch, turn_files, subject, record.trailers("plan"), since=since)
    return record


def plan_subject(turn: str, title: str) -> str:
    """`teddy: 04 plan: Add login form`: the plan's title on one line, redacted (it is the
    model's text) and cut to keep the subject short in `git log --oneline`."""
    line = " ".join(redact(title)[0].split())
    if len(line) > SUBJECT_TITLE_MAX:
        line = line[: SUBJECT_TITLE_MAX - 3].rstrip() + "..."
    return f"teddy: {turn} plan: {line}" if line else f"teddy: {turn} plan"


def record_report(
    store: SessionStore, pending: PendingTurn, report: bytes, record: TurnRecord
) -> str:
    """Commit a turn's report; `record` is its final turn.yaml (status, snapshot, times)."""
    files = {f"{pending.turn}/{REPORT}": report, f"{pending.turn}/{TURN_RECORD}": record.to_yaml()}
    files.update(_pruned_context(store, pending, report))
    subject = f"teddy: {pending.turn} report ({record.status})"
    return store.commit_files(
        pending.session, pending.branch, files, subject, record.trailers("report")
    )


def _entries(data: bytes | None) -> list[str]:
    lines = (data or b"").decode("utf-8", "replace").splitlines()
    return [e for e in map(entry_of, lines) if e]


def _pruned_context(store: SessionStore, pending: PendingTurn, report: bytes) -> dict[str, bytes]:
    """`session.context` after the turn's PRUNEs of global or session entries (excluded for
    the rest of the session) and READs of excluded ones, in the report's commit; {} when
    unchanged. The global level is the one the turn was planned with (its base snapshot)."""
    repo = store.repo
    tip_tree = repo.read_commit(store.branches(pending.session)[pending.branch]).tree
    base_tree = repo.read_commit(pending.record.base_snapshot).tree
    text = (repo.read_file(tip_tree, SESSION_CONTEXT) or b"").decode("utf-8", "replace")
    before = _entries(text.encode())
    after = after_report(
        before, _entries(repo.read_file(base_tree, GLOBAL_CONTEXT)), parse_report(report)
    )
    return {} if after == before else {SESSION_CONTEXT: rewrite(text, after).encode()}


# ---- the plan as the model wrote it -------------------------------------------------------------


def keep_original_plan(store: SessionStore, record: TurnRecord, plan: bytes) -> None:
    """A plan whose commit holds it redacted is kept as the model wrote it in the derived
    state (local, never pushed): execute runs what the model wrote, not `[REDACTED:...]`."""
    layout = store.repo.layout
    path = layout.original_plan(record.session, record.turn)
    layout.shared.make_folders(path.parent)
    partial = path.with_name(path.name + ".tmp")
    partial.write_bytes(plan)
    layout.shared.adjust(partial)
    partial.replace(path)  # whole or not at all: a killed write leaves no half plan


def plan_to_run(store: SessionStore, pending: PendingTurn) -> tuple[str, bool]:
    """The text execute runs: the plan kept as the model wrote it while it is the one the
    commit holds redacted, else the committed plan; and whether that still holds redacted
    values (a session fetched from a teammate, or the kept copy gone)."""
    path = store.repo.layout.original_plan(pending.session, pending.turn)
    try:
        original: str | None = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        original = None
    if original is not None and redact(original)[0] == pending.plan_text:
        return original, False
    return pending.plan_text, MARKER_PREFIX in pending.plan_text


def forget_original_plan(store: SessionStore, session: str, turn: str) -> None:
    """The turn has run (its secrets leave the derived state), or its plan needs no copy."""
    store.repo.layout.original_plan(session, turn).unlink(missing_ok=True)
