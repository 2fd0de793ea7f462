"""Planning a turn. Today the manual path: a plan written elsewhere (a model's reply pasted
into a file) is sanitized, validated and recorded as the session's next turn."""

from git_teddy.context import next_turn_context, parse_context, render_context
from git_teddy.execute.report import ExecutionReport, parse_report
from git_teddy.plan import Plan, parse_plan, sanitize
from git_teddy.session.trailers import parse_trailers
from git_teddy.turns import TurnRecord, record_plan
from git_teddy.workspace import Workspace


def _previous_context(ws: Workspace, session: str, branch: str) -> list[str]:
    store = ws.store
    tip = store.repo.read_commit(store.branches(session)[branch])
    turn = parse_trailers(tip.message).get("Teddy-Turn")
    if not turn:
        session_context = store.repo.read_file(tip.tree, "session.context") or b""
        return parse_context(session_context.decode("utf-8", "replace"))
    context = store.repo.read_file(tip.tree, f"{turn}/turn.context") or b""
    report_text = store.repo.read_file(tip.tree, f"{turn}/report.md")
    report: ExecutionReport | None = parse_report(report_text.decode()) if report_text else None
    return next_turn_context(parse_context(context.decode("utf-8", "replace")), report)


def record_manual_plan(
    ws: Workspace, session: str, message: str, text: str, agent: str | None
) -> tuple[TurnRecord, Plan]:
    clean = sanitize(text)
    plan = parse_plan(clean)  # an invalid plan is refused with every problem listed
    branch = ws.store.current_branch(session)
    files = {
        "plan.md": clean.encode(),
        "user_prompt.txt": (message.rstrip("\n") + "\n").encode(),
        "turn.context": render_context(_previous_context(ws, session, branch)).encode(),
    }
    record = record_plan(ws.store, session, branch, files, agent)
    return record, plan
