"""The plan-act loop behind `git teddy start`, `continue` and `resume`.

Each round plans a turn (unless a plan is already waiting for its report), executes it, and
decides whether to go on, telling and asking the user only through the UI it is given
(git_teddy.ui). Interactive, the user comments before each plan and approves each action;
with an unattended UI (--yolo) nothing is asked until the model asks the user
(CHAT_WITH_USER), whose reply becomes the next turn's message. The loop also stops at a
top-level CONCLUDE, at a plan that stays invalid, at `max_turns` or `max_cost`, and on
Ctrl-C, which pauses the session.
"""

import shlex
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

from git_teddy.artifacts.report import ExecutionReport
from git_teddy.artifacts.sessionlog.callouts import read_acted_on, read_user
from git_teddy.artifacts.sessionlog.model import Phase
from git_teddy.errors import TeddyError
from git_teddy.execute.runner import ExecutionResult, execute_turn
from git_teddy.planning.turn import PlannedTurn, plan_turn
from git_teddy.session.turns import pending_turn
from git_teddy.session.workspace import Workspace
from git_teddy.ui import UI, Interrupted

# What an autonomous turn (or an empty comment) tells the model: the user has nothing to add.
CONTINUE_MESSAGE = "Continue."

StopReason = Literal[
    "quit",  # the user stopped at the comment prompt or quit an approval
    "waiting",  # the model asked the user, who gave no reply
    "concluded",  # a CONCLUDE with no invoking agent to return to: the work is done
    "max-turns",
    "max-cost",
    "error",  # planning failed: a plan invalid beyond the retry budget, a provider error
]


@dataclass(frozen=True)
class LoopLimits:
    max_turns: int | None = None  # turns executed by this run
    max_cost: float | None = None  # USD, the known cost of the turns planned by this run


@dataclass(frozen=True)
class LoopOutcome:
    reason: StopReason
    turns: int  # turns executed by this run
    cost: float  # USD spent on the turns planned by this run (unknown costs count as 0)
    last_turn: str | None
    error: TeddyError | None = None
    unknown_costs: int = 0  # planned turns whose model reported no cost


# ---- what the user is shown ----------------------------------------------------------------


def result_line(result: ExecutionResult) -> str:
    """One line for an executed turn: its status and what became of the working tree."""
    summary = result.report.run_summary
    line = f"turn {result.turn.turn}: {summary.status}"
    if result.apply and result.apply.applied:
        line += f"; {len(result.apply.changed_paths)} file(s) changed in your working tree"
    if result.apply and result.apply.conflicts:
        line += (
            "; your edits conflict in "
            + ", ".join(result.apply.conflicts)
            + f" (resolve them; the result is snapshot {summary.snapshot})"
        )
    return line


def _message(ui: UI, first_turn: bool) -> str | None:
    """The message of the next plan; None stops the loop. An empty comment goes on."""
    text = ui.first_message() if first_turn else ui.next_message()
    return None if text is None else text or CONTINUE_MESSAGE


# ---- what a finished turn means for the loop -------------------------------------------------


def _succeeded(report: ExecutionReport, action_type: str) -> list[dict[str, object]]:
    return [
        log.details or {}
        for log in report.action_logs
        if log.action_type == action_type and log.status == "SUCCESS"
    ]


def chat_reply(report: ExecutionReport) -> tuple[bool, str | None]:
    """Whether the model asked the user, and the reply (the last one, if several)."""
    chats = _succeeded(report, "CHAT_WITH_USER")
    replies = [str(d["reply"]) for d in chats if d.get("reply")]
    return bool(chats), replies[-1] if replies else None


def concluded_at_top(result: ExecutionResult) -> bool:
    """A CONCLUDE with no invoker waiting: nobody to return to, so the work is done."""
    return bool(_succeeded(result.report, "CONCLUDE")) and not result.turn.record.agent_stack


# ---- the loop --------------------------------------------------------------------------------


@dataclass
class _Progress:
    turns: int = 0
    cost: float = 0.0
    unknown_cost_noted: bool = False
    unknown_costs: int = 0


def _limit_reached(progress: _Progress, limits: LoopLimits) -> StopReason | None:
    if limits.max_turns is not None and progress.turns >= limits.max_turns:
        return "max-turns"
    if limits.max_cost is not None and progress.cost >= limits.max_cost:
        return "max-cost"
    return None


def _last_turn(ws: Workspace, session: str) -> str | None:
    branch = ws.store.current_branch(session)
    return ws.store.last_turn_trailers(session, branch).get("Teddy-Turn")


def reactivate(ws: Workspace, session: str) -> str | None:
    """Make a paused or completed session active; returns the status it had, if changed."""
    status = str(ws.store.session_log(session).get("status", "active"))
    if status in ("paused", "completed"):
        ws.store.set_status(session, "active")
        return status
    return None


@contextmanager
def _no_interrupts() -> Iterator[None]:
    """A second Ctrl-C must not cut the pause commit short."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def pause_session(ws: Workspace, session: str) -> str | None:
    """Set the session's status to paused and its resume point to its last turn."""
    with _no_interrupts():
        last = _last_turn(ws, session)
        ws.store.set_status(session, "paused", resume_point=last)
    return last


def finish_session(ws: Workspace, session: str) -> None:
    """Mark the session completed (`resume` makes it active again)."""
    with _no_interrupts():
        ws.store.set_status(session, "completed")


def pause(ws: Workspace, session: str, ui: UI) -> None:
    last = pause_session(ws, session)
    where = f" at turn {last}" if last else ""
    resume = f"git teddy resume {shlex.quote(session)}"
    ui.progress(f"\npaused session {session}{where}; resume with: {resume}")


def resume_context(ws: Workspace, session: str) -> list[str]:
    """Where `resume` picks a session up (spec 003: it displays the resume context): the
    session and its status, the turn it resumes at with its agent, plan title and status,
    the message that turn was planned from, and what happens first."""
    store = ws.store
    log = store.read_log(session)
    point = log.meta.resume_point or _last_turn(ws, session)
    branch = store.current_branch(session)
    state = f"{log.meta.status}, branch {branch}"
    phase = log.phase(point) if point else None
    if phase is None:
        return [f"resuming {session} ({state}): no turn yet, the first plan starts it"]
    lines = [f"resuming {session} at turn {phase.turn} ({state})"]
    lines.append(f"  turn {phase.turn} (@{phase.agent}, {phase.status}): {phase.title}")
    message = _planned_from(phase)
    if message is not None:
        lines.append(f"  its message: {_one_line(message)}")
    pending = pending_turn(store, session, branch)
    if pending is not None:
        lines.append(f"  pending: turn {pending.turn}'s plan has no report; it is executed first")
    else:
        lines.append("  pending: nothing; the next turn is planned from your message")
    return lines


def _planned_from(phase: Phase) -> str | None:
    """The user's message the phase's turn was planned from (its `[!user]` callout)."""
    for callout in phase.callouts("user"):
        words, acted_on = read_user(callout)
        if read_acted_on(acted_on)[0] == "message":
            return words
    return None


def _one_line(text: str, limit: int = 100) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _plan(
    ws: Workspace,
    session: str,
    message: str,
    agent: str | None,
    depth: int,
    ui: UI,
    progress: _Progress,
    limits: LoopLimits,
    pipeline: str | None,
    resume: bool = False,
) -> PlannedTurn:
    planned = plan_turn(ws, session, message, agent, depth, ui=ui, pipeline=pipeline, resume=resume)
    cost = planned.record.cost
    if cost is None and limits.max_cost is not None and not progress.unknown_cost_noted:
        ui.progress("note: the model reports no cost; --max-cost counts such turns as $0")
        progress.unknown_cost_noted = True
    progress.cost += cost or 0.0
    progress.unknown_costs += cost is None
    ui.show("\n" + "\n".join(planned.summary_lines()))
    return planned


def run_loop(
    ws: Workspace,
    session: str,
    first_message: str | None,
    ui: UI,
    limits: LoopLimits = LoopLimits(),
    depth: int = 0,
    agent: str | None = None,
    pipeline: str | None = None,
    resume: bool = False,
) -> LoopOutcome:
    """Plan, execute, repeat until a stop condition. Every turn is planned through
    `pipeline` when one is named; with `resume` the first one is shown the session's log
    up to its resume point. Ctrl-C pauses the session and raises KeyboardInterrupt
    again; a planning error ends the loop with reason "error"."""
    progress = _Progress()
    store = ws.store
    was = reactivate(ws, session)
    if was:
        ui.progress(f"session {session} was {was}; it is active again")
    first_turn = not _last_turn(ws, session)
    if ui.unattended and first_turn and first_message is None:
        raise TeddyError("the first turn of a session needs a message", "give it with -m MESSAGE")

    def outcome(reason: StopReason, error: TeddyError | None = None) -> LoopOutcome:
        turns, cost = progress.turns, progress.cost
        last, unknown = _last_turn(ws, session), progress.unknown_costs
        return LoopOutcome(reason, turns, cost, last, error, unknown)

    message = first_message
    try:
        while True:
            pending = pending_turn(store, session, store.current_branch(session))
            if pending:
                ui.show(f"\nturn {pending.turn} has a plan without a report: executing it")
            else:
                reason = _limit_reached(progress, limits)
                if reason:
                    return outcome(reason)
                message = message or _message(ui, first_turn)
                if message is None:
                    return outcome("quit")
                try:
                    _plan(
                        ws, session, message, agent, depth, ui, progress, limits, pipeline, resume
                    )
                except TeddyError as error:
                    return outcome("error", error)
                message, agent, first_turn = None, None, False  # -a names the first agent only
                resume = False
            result = execute_turn(ws, session, ui)
            progress.turns += 1
            ui.show(result_line(result))
            if result.report.run_summary.status == "ABORTED":
                return outcome("quit")
            if concluded_at_top(result):
                with _no_interrupts():
                    store.set_status(session, "completed", resume_point=result.turn.turn)
                return outcome("concluded")
            asked, reply = chat_reply(result.report)
            if asked and reply is None and ui.unattended:
                return outcome("waiting")
            message = reply
    except (KeyboardInterrupt, Interrupted):
        pause(ws, session, ui)
        raise KeyboardInterrupt from None


def describe_outcome(outcome: LoopOutcome) -> str:
    why = {
        "quit": "you stopped it",
        "waiting": "the model is waiting for your reply",
        "concluded": "the work is concluded",
        "max-turns": "--max-turns reached",
        "max-cost": "--max-cost reached",
        "error": "planning failed",
    }[outcome.reason]
    last = f", last turn {outcome.last_turn}" if outcome.last_turn else ""
    return f"loop stopped: {why} ({outcome.turns} turn(s), {_cost_said(outcome)}{last})"


def _cost_said(outcome: LoopOutcome) -> str:
    """The run's cost, never a made-up $0.0000 for turns whose model reported none."""
    if not outcome.unknown_costs:
        return f"${outcome.cost:.4f}"
    if not outcome.cost:
        return "cost unknown"
    return f"${outcome.cost:.4f} + unknown"
