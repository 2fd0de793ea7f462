"""`git teddy discard`: drop a session's pending plan without running it.

The plan is not deleted: the turn gets a report commit, as if the user had quit at its
first approval (`execute` then `q`): status ABORTED, every action skipped "discarded by the
user", nothing run, nothing applied, the result the turn's base. So the plan stays in the
history (`show`, `log`, `learn` see it) and the next `plan` starts from where the turn did.
"""

from dataclasses import dataclass

from git_teddy.artifacts.plan import PlanError, parse_plan
from git_teddy.artifacts.report import ActionLog, ExecutionReport, RunSummary, render_report
from git_teddy.errors import TeddyError
from git_teddy.execute.actions import params_of
from git_teddy.execute.runner import find_pending
from git_teddy.session.claims import claim_session
from git_teddy.session.turns import PendingTurn, forget_original_plan, plan_to_run, record_report
from git_teddy.session.workspace import Workspace

DISCARDED = "discarded by the user (git teddy discard)"


@dataclass(frozen=True)
class Discarded:
    turn: str
    title: str
    actions: int


def discard_turn(ws: Workspace, session: str) -> Discarded:
    """Record the session's pending turn as discarded (refused when there is none, or when
    an interrupted `execute` of it may have run actions already)."""
    with claim_session(ws.store, session, "discard") as claim:
        turn = find_pending(ws.store, session)
        claim.working_on(turn.turn)
        journal = ws.repo.layout.execute_journal(turn.session, turn.turn)
        if journal.exists():  # its actions may have run: their effects are not to be lost
            raise TeddyError(
                f"turn {turn.turn}'s execute was interrupted: some of its actions may have run",
                "run `git teddy execute` to finish it (quit with q at the next approval)",
            )
        return _record_discard(ws, turn)


def _record_discard(ws: Workspace, turn: PendingTurn) -> Discarded:
    text, _ = plan_to_run(ws.store, turn)
    try:
        plan = parse_plan(text)
        title, actions = plan.title, list(plan.actions)
    except PlanError:  # an invalid plan is discarded all the same
        title, actions = "", []
    logs = [
        ActionLog(
            index=index,
            action_type=action.type,
            description=getattr(action, "description", None),
            params=params_of(action),
            status="SKIPPED",
            reason=DISCARDED,
        )
        for index, action in enumerate(actions, start=1)
    ]
    now = ws.store.now().isoformat()
    base = turn.record.base_snapshot
    summary = RunSummary(
        status="ABORTED",
        start_time=now,
        end_time=now,
        base_snapshot=base,
        snapshot=base,
        applied="not applied: the plan was discarded",
        notes=[f"the plan was {DISCARDED}; nothing was run"],
    )
    report = ExecutionReport(run_summary=summary, action_logs=logs)
    record = turn.record.model_copy(
        update={"status": "aborted", "snapshot": base, "executed_at": now}
    )
    record_report(ws.store, turn, render_report(report).encode(), record)
    forget_original_plan(ws.store, turn.session, turn.turn)
    return Discarded(turn.turn, title, len(logs))
