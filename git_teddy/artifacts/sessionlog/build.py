"""The session log built from a conversation branch's turns (pure).

Each turn becomes a phase: the user's message, invalid replies repaired by a retry, the
plan's chosen direction, the executed actions, their failures (and the later turn that
fixed them), the user's rejections and replies, subagents, and the plan's task list.
Turns a subagent planned (between an INVOKE and its CONCLUDE) form the subagent's own log,
which the invoking phase shows inline, links or embeds (`teddy.subagentMode`).
"""

import hashlib
import re
import shlex
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from git_teddy.artifacts.names import subagent_session_id
from git_teddy.artifacts.sessionlog.callouts import (
    answered,
    embedded_subagent,
    error_callout,
    failure,
    inline_subagent,
    linked_subagent,
    memos_decision,
    planned_as,
    rejected_as,
    unreasoned_rejection,
    user_callout,
)
from git_teddy.artifacts.sessionlog.model import (
    Block,
    Callout,
    Phase,
    SessionLog,
    SessionMeta,
    SubagentEntry,
    SubagentMode,
    ToolCall,
    ToolCalls,
    call_line,
)
from git_teddy.artifacts.sessionlog.render import render_phase
from git_teddy.artifacts.sessionlog.steering import Steering, with_steering
from git_teddy.artifacts.turn_record import TurnRecord

if TYPE_CHECKING:  # read from a turn's files, which the caller parsed: `new` parses none
    from git_teddy.artifacts.plan.models import Plan
    from git_teddy.artifacts.report import ActionLog, ExecutionReport

SUMMARY_LIMIT = 100
_VERSION = re.compile(r"<agent_prompt\b[^>]*\bversion=\"([^\"]+)\"")
_CALL_STATUS = {"SUCCESS": "success", "FAILURE": "failure", "SKIPPED": "skipped"}


@dataclass(frozen=True)
class TurnFiles:
    """What the log needs from one turn folder, already read and parsed."""

    name: str
    record: TurnRecord  # turn.yaml
    plan: "Plan | None" = None
    report: "ExecutionReport | None" = None
    user_prompt: str | None = None
    system_prompt: str | None = None
    problems: Sequence[str] = ()  # attempts/NN.problems.txt, oldest first
    # agent_version(system_prompt), when the prompt itself was left behind (a cached turn)
    prompt_version: str | None = None

    @property
    def agent(self) -> str:
        name = self.record.agent or "unknown"
        version = self.prompt_version or agent_version(self.system_prompt)
        return f"{name}@{version}" if version else name

    @property
    def stack_depth(self) -> int:
        return len(self.record.agent_stack)

    @property
    def tokens(self) -> int | None:
        counts = [self.record.tokens_in, self.record.tokens_out]
        known = [int(c) for c in counts if c is not None]
        return sum(known) if known else None

    @property
    def title(self) -> str:
        return one_line(self.plan.title) if self.plan else f"Turn {self.name}"


@dataclass
class BuiltLog:
    log: SessionLog
    subagents: dict[str, SessionLog] = field(default_factory=dict)  # id -> its own log


def agent_version(system_prompt: str | None) -> str | None:
    """`version="..."` of the prompt's root element; else a short hash of the prompt, so
    that a changed prompt shows as a new version."""
    if not system_prompt:
        return None
    match = _VERSION.search(system_prompt[:2000])
    return match[1] if match else hashlib.sha1(system_prompt.encode()).hexdigest()[:7]


def one_line(text: str) -> str:
    return " ".join(text.split())


def cut(text: str, limit: int = SUMMARY_LIMIT) -> str:
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# ---- the log ----------------------------------------------------------------------------------


def build_log(
    base: SessionMeta,
    turns: Sequence[TurnFiles],
    mode: SubagentMode,
    steering: Sequence[Steering] = (),
) -> BuiltLog:
    """The log of a branch whose turns are `turns` (oldest first). `base` gives what the
    turns cannot: id, start, status, channel, end, resume point; `steering`, the user's
    commands between turns, shown as `[!user]` callouts."""
    subagents: dict[str, SessionLog] = {}
    phases: list[Phase] = []
    entries: list[SubagentEntry] = []
    for index, segment in _segments(turns):
        turn = turns[index]
        phase = build_phase(turn, turns[index + 1 :], base.channel)
        if segment:
            sub = _subagent_log(base, segment)
            entries.append(_entry(sub, segment))
            phase = phase.model_copy(
                update={"blocks": [*phase.blocks, subagent_callout(sub, segment, mode)]}
            )
            if mode != "inline":
                subagents[sub.meta.session_id] = sub
        phases.append(phase)
    meta = base.model_copy(update={**_derived(turns), "subagents": entries})
    return BuiltLog(SessionLog(meta=meta, phases=with_steering(phases, steering)), subagents)


def _segments(turns: Sequence[TurnFiles]) -> list[tuple[int, list[TurnFiles]]]:
    """Top-level turns, each with the subagent turns that follow it (its INVOKE's work)."""
    result: list[tuple[int, list[TurnFiles]]] = []
    for index, turn in enumerate(turns):
        if turn.stack_depth > 0 and result:
            result[-1][1].append(turn)
        else:
            result.append((index, []))
    return result


def _derived(turns: Sequence[TurnFiles]) -> dict[str, Any]:
    models = Counter(t.record.model for t in turns if t.record.model)
    return {
        "participants": list(dict.fromkeys(t.agent for t in turns)),
        "model": models.most_common(1)[0][0] if models else None,
        "tokens_used": sum(t.tokens or 0 for t in turns),
    }


# ---- subagents --------------------------------------------------------------------------------


def _subagent_log(base: SessionMeta, segment: list[TurnFiles]) -> SessionLog:
    first, last = segment[0], segment[-1]
    concluded = _concluded(last)
    meta = SessionMeta.model_validate(
        {
            "session_id": subagent_session_id(base.session_id, first.name, first.record.agent),
            "started": first.record.planned_at or base.started,
            "ended": str(last.record.executed_at) if concluded else None,
            "status": "completed" if concluded else "active",
            "channel": base.channel,
            "parent_session": base.session_id,
            **_derived(segment),
        }
    )
    phases = [build_phase(t, segment[i + 1 :], base.channel) for i, t in enumerate(segment)]
    return SessionLog(meta=meta, phases=phases)


def _concluded(turn: TurnFiles) -> bool:
    return any(
        log.action_type == "CONCLUDE" and log.status == "SUCCESS"
        for log in (turn.report.action_logs if turn.report else [])
    )


def _entry(sub: SessionLog, segment: list[TurnFiles]) -> SubagentEntry:
    statuses = [(t.record.status or "planned").lower() for t in segment]
    costs = [float(t.record.cost) for t in segment if t.record.cost is not None]
    return SubagentEntry(
        session=sub.meta.session_id,
        agent=segment[0].agent,
        model=sub.meta.model,
        tokens=sub.meta.tokens_used,
        turns=len(segment),
        executed=sum(status != "planned" for status in statuses),
        failures=statuses.count("failure"),
        cost=round(sum(costs), 6) if costs else None,
    )


def subagent_callout(sub: SessionLog, segment: list[TurnFiles], mode: SubagentMode) -> Callout:
    agent, model, session_id = segment[0].agent, sub.meta.model, sub.meta.session_id
    if mode == "inline":
        work = "\n\n".join(render_phase(phase, level=3) for phase in sub.phases)
        return inline_subagent(agent, model, work)
    if mode == "embed":
        return embedded_subagent(agent, model, session_id)
    summary = _conclusion(segment[-1]) or f"in progress after {len(segment)} turn(s)"
    return linked_subagent(agent, model, session_id, cut(summary, 300))


def _conclusion(turn: TurnFiles) -> str | None:
    for log in turn.report.action_logs if turn.report else []:
        if log.action_type == "CONCLUDE" and log.status == "SUCCESS":
            return str(log.params.get("message") or "concluded")
    return None


# ---- one phase --------------------------------------------------------------------------------


def build_phase(turn: TurnFiles, later: Sequence[TurnFiles], channel: str) -> Phase:
    cost = turn.record.cost
    return Phase(
        title=turn.title,
        agent=turn.agent,
        channel=channel,
        turn=turn.name,
        time=turn.record.planned_at,
        status=turn.record.status or "planned",
        model=turn.record.model or None,
        tokens=turn.tokens,
        cost=float(cost) if cost is not None else None,
        blocks=phase_blocks(turn, later),
    )


def phase_blocks(turn: TurnFiles, later: Sequence[TurnFiles]) -> list[Block]:
    blocks: list[Block] = []
    if turn.user_prompt and turn.user_prompt.strip():
        acted = planned_as(turn.agent, turn.title)
        blocks.append(user_callout(turn.user_prompt.strip("\n"), acted))
    blocks += _retry_errors(turn)
    blocks += _plan_decisions(turn)
    logs = turn.report.action_logs if turn.report else []
    if logs:
        blocks.append(ToolCalls(calls=[tool_call(log) for log in logs]))
    blocks += [_failure(log, later) for log in logs if log.status == "FAILURE"]
    blocks += _user_interventions(logs, later[0] if later else None)
    from git_teddy.artifacts.sessionlog.tasks import dashboard_tasks  # `new` has no plan

    tasks = dashboard_tasks(turn.plan.rationale) if turn.plan else None
    if tasks:
        blocks.append(tasks)
    return blocks


def _retry_errors(turn: TurnFiles) -> list[Block]:
    """Replies that were not valid plans, and the retry that repaired them."""
    blocks: list[Block] = []
    for number, problems in enumerate(turn.problems, start=1):
        failure = f"Reply {number} was not a valid plan:\n{problems.strip()}"
        fixed = turn.plan is not None  # only a valid plan is recorded as the turn's
        how = f"reply {number + 1} was re-prompted with these problems and validated"
        blocks.append(error_callout(failure, turn.name if fixed else None, how if fixed else None))
    return blocks


def _plan_decisions(turn: TurnFiles) -> list[Block]:
    blocks: list[Block] = []
    direction = justification(turn.plan.rationale) if turn.plan else ""
    if direction:
        blocks.append(Callout(kind="decision", body=direction))
    memos = [f"[{m.op}] {m.text}" for m in turn.plan.memos] if turn.plan else []
    if memos:
        blocks.append(memos_decision(turn.report.memos.decision if turn.report else "none", memos))
    for log in turn.report.action_logs if turn.report else []:
        if log.status == "REJECTED" and not log.reason:
            blocks.append(unreasoned_rejection(call_text(log)))
    return blocks


def justification(rationale: str) -> str:
    """The plan's chosen direction: its `### 2. Justification` section (else its first
    paragraph)."""
    match = re.search(
        r"^#+\s*(?:\d+\.\s*)?Justification\s*\n(?P<text>.*?)(?=^#+\s|\Z)",
        rationale,
        re.MULTILINE | re.DOTALL,
    )
    text = match["text"] if match else rationale.strip().split("\n\n")[0]
    return text.strip()


def _user_interventions(logs: "Sequence[ActionLog]", next_turn: TurnFiles | None) -> list[Block]:
    blocks: list[Block] = []
    asked = next_turn.user_prompt.strip() if next_turn and next_turn.user_prompt else None
    for log in logs:
        if log.status == "REJECTED" and log.reason:
            blocks.append(user_callout(log.reason, rejected_as(call_text(log))))
        reply = log.details.get("reply") if log.action_type == "CHAT_WITH_USER" else None
        if reply:
            question = cut(str(log.params.get("message") or ""), 80)
            used = None if next_turn is None else asked == str(reply).strip()
            blocks.append(user_callout(str(reply), answered(question, used)))
    return blocks


def _failure(log: "ActionLog", later: Sequence[TurnFiles]) -> Callout:
    from git_teddy.artifacts.output import failure_excerpt  # its patterns: a failed action's

    call = call_text(log)
    summary = summary_of(log)
    # the first error and the last lines: the cause a test run states at its top and the
    # summary it ends with, not only the last lines
    details = log.details
    stdout, stderr = str(details.get("stdout") or ""), str(details.get("stderr") or "")
    tests = (details.get("failed_tests") or {}).get("tests") or []
    named = [line for line in tests[1:] if isinstance(line, str)]  # the first: in the summary
    body = failure(call, summary, [*named, *failure_excerpt(stdout, stderr, summary)])
    fixer = next((t for t in later if _succeeded(t, log)), None)
    return error_callout(body, fixer.name if fixer else None, fixer.title if fixer else None)


def _succeeded(turn: TurnFiles, failed: "ActionLog") -> bool:
    """Whether `turn` ran `failed` again with success: the same call, or for a command the
    same check (same_check)."""
    call, command = call_text(failed), _command(failed)
    for log in turn.report.action_logs if turn.report else []:
        if log.status != "SUCCESS" or log.details.get("expected_failure"):
            continue
        if call_text(log) == call:
            return True
        again = _command(log)
        if command is not None and again is not None and same_check(command, again):
            return True
    return False


def _command(log: "ActionLog") -> str | None:
    command = log.params.get("command") if log.action_type == "EXECUTE" else None
    return str(command) if command else None


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def same_check(failed: str, later: str) -> bool:
    """Whether the `later` command checks what the `failed` one did (so its success resolves
    the failure): the same words but for flags (`pytest -x tests/a.py` and `pytest -q
    tests/a.py`), a test file of the failed run run again (`tests/a.py::test_b` by
    `pytest tests/a.py`), or the same tool run more widely (`pytest tests/a.py` by `pytest`)."""
    old, new = _words(failed), _words(later)
    if not old or not new:
        return False
    if old == new:
        return True
    old_files, new_files = _files(old), _files(new)
    shared = old_files & new_files
    if shared and (new[0] == old[0] or any("test" in name for name in shared)):
        return True
    return new[0] == old[0] and not new_files and new == old[: len(new)]


def _words(command: str) -> list[str]:
    """The command's words without its flags and leading VAR=value assignments."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    return [word for word in words if not word.startswith("-")]


def _files(words: list[str]) -> set[str]:
    """The words that name files (a test's id `tests/a.py::test_b` names tests/a.py)."""
    names = {word.split("::")[0].removeprefix("./") for word in words[1:]}
    return {name for name in names if "/" in name or re.search(r"\.\w+$", name)}


# ---- tool calls -------------------------------------------------------------------------------


def tool_call(log: "ActionLog") -> ToolCall:
    status = _CALL_STATUS.get(log.status, "rejected")
    return ToolCall(call=call_text(log), summary=cut(summary_of(log)), status=status)  # type: ignore[arg-type]


def call_text(log: "ActionLog") -> str:
    """`EDIT src/app.py`, `EXECUTE pytest -q`, `INVOKE architect`: one line."""
    params = log.params
    target = next(
        (params[key] for key in ("path", "resource", "command", "agent") if params.get(key)),
        None,
    )
    if target is None and params.get("queries"):
        target = " | ".join(str(q) for q in params["queries"])
    if target is None and log.action_type == "CHAT_WITH_USER":
        target = params.get("message")
    return cut(call_line(log.action_type, one_line(str(target)) if target else None), 200)


def summary_of(log: "ActionLog") -> str:
    if log.status == "REJECTED":
        return f"rejected: {log.reason}" if log.reason else "rejected"
    if log.status == "SKIPPED":
        return log.reason or "skipped: an earlier action failed"
    return log.summary or str(log.details.get("error") or log.status.lower())
