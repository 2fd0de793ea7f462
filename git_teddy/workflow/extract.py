"""The workflow a session log shows (pure): one step per phase, in the order the turns
happened (subagents' phases after the phase that invoked them), the data flow read from the
tool calls, gates where a human decided, and conditional steps where a later turn repaired
a failure. A model may refine the extract (refine.py).
"""

import re
from collections.abc import Iterable, Iterator, Mapping

from git_teddy.artifacts.sessionlog.callouts import (
    read_failed_call,
    read_resolution,
    subagent_agent,
    subagent_link,
)
from git_teddy.artifacts.sessionlog.model import (
    Phase,
    SessionLog,
    ToolCall,
    call_target,
    call_type,
)
from git_teddy.artifacts.sessionlog.reading import (
    Intervention,
    blockquote,
    expand_subagents,
    interventions,
    memo_decisions,
    quote,
    ran_calls,
    turn_message,
    unreasoned_rejections,
)
from git_teddy.artifacts.sessionlog.render import inline_code
from git_teddy.workflow.model import Port, Step, Workflow, WorkflowMeta

_SESSION_ID = re.compile(r"\d{8}-(?P<slug>.+)")


def extract_workflow(
    log: SessionLog,
    created: str | None = None,
    subagents: Mapping[str, SessionLog] | None = None,
) -> Workflow:
    """One step per phase, a subagent's phases after the phase that invoked it (`subagents`:
    the linked logs by session id): agent and channel from its heading, data flow from its
    tool calls (READ/RESEARCH in, CREATE/EDIT out, EXECUTE as checks), gates where a human
    decided (rejections, memos, questions), and conditional steps where a later turn
    repaired a failure."""
    phases = expand_subagents(log, subagents or {})
    titles = unique_titles([phase.title for phase in phases])
    by_turn = {phase.turn: title for phase, title in zip(phases, titles, strict=True)}
    repairs = dict(_repairs(phases))
    conditions = _conditions(repairs, by_turn)
    steps = [
        _step(phase, title, repairs.get(phase.turn, []), by_turn, conditions.get(phase.turn))
        for phase, title in zip(phases, titles, strict=True)
    ]
    session = log.meta.session_id
    slug = _SESSION_ID.fullmatch(session)
    name = slug["slug"] if slug else session
    meta = WorkflowMeta(
        name=name,
        source_session=session,
        agents=list(dict.fromkeys(phase.agent for phase in phases)),
        channel=log.meta.channel,
        created=created,
    )
    description = f"Codified from session {session}: one step per turn."
    return Workflow(meta=meta, title=f"Workflow {name}", description=description, steps=steps)


def unique_titles(titles: list[str]) -> list[str]:
    """Step titles are references: a repeated title gets ` (2)`, ` (3)`..."""
    taken: set[str] = set()
    result = []
    for title in titles:
        base = title.strip() or "Untitled"
        candidate, number = base, 1
        while candidate in taken:
            number += 1
            candidate = f"{base} ({number})"
        taken.add(candidate)
        result.append(candidate)
    return result


def _repairs(phases: list[Phase]) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """turn -> [(the later turn that repaired one of its failures, the failed call)]."""
    for phase in phases:
        entries = []
        for callout in phase.callouts("error"):
            turn, _how = read_resolution(callout)
            if turn is not None and turn != phase.turn:
                entries.append((turn, read_failed_call(callout) or ""))
        if entries:
            yield phase.turn, entries


def _conditions(
    repairs: Mapping[str, list[tuple[str, str]]], by_turn: Mapping[str, str]
) -> dict[str, str]:
    """turn -> its `when`: a step that repaired an earlier one runs when that one failed."""
    found: dict[str, list[str]] = {}
    for failed_turn, entries in repairs.items():
        for fixer_turn, call in entries:
            if fixer_turn in by_turn and failed_turn in by_turn:
                step = quote(by_turn[failed_turn])
                what = (
                    f"{inline_code(call)} failed in step {step}" if call else f"step {step} failed"
                )
                found.setdefault(fixer_turn, []).append(what)
    return {turn: " or ".join(dict.fromkeys(whats)) for turn, whats in found.items()}


def _step(
    phase: Phase,
    title: str,
    repairs: list[tuple[str, str]],
    by_turn: Mapping[str, str],
    when: str | None,
) -> Step:
    done = ran_calls(phase)
    fixer = next((by_turn[turn] for turn, _ in repairs if turn in by_turn), None)
    message = turn_message(phase)
    return Step(
        title=title,
        agent=phase.agent,
        channel=phase.channel,
        description=blockquote(message) if message else "",  # never a field or a heading
        inputs=_dedupe(_input(call) for call in done if call.status == "success"),
        outputs=_dedupe(_output(call) for call in done if call.status == "success"),
        checks=list(
            dict.fromkeys(
                call_target(c) for c in done if call_type(c) == "EXECUTE" and call_target(c)
            )
        ),
        gates=gates(phase),
        when=when,
        on_failure=fixer if fixer != title else None,
        invokes=_invokes(phase),
    )


def _input(call: ToolCall) -> Port | None:
    kind, target = call_type(call), call_target(call)
    if kind == "READ" and target:
        return Port(name=target, type="url" if re.match(r"https?://", target) else "file")
    if kind == "RESEARCH" and target:
        return Port(name=target, type="query")
    return None


def _output(call: ToolCall) -> Port | None:
    if call_type(call) in ("CREATE", "EDIT") and call_target(call):
        return Port(name=call_target(call), type="file")
    return None


def _dedupe(ports: Iterable[Port | None]) -> list[Port]:
    return list(dict.fromkeys(port for port in ports if port is not None))


def gates(phase: Phase) -> list[str]:
    """Where a human decided in this phase: rejected actions (with the reason when given),
    memo approvals and questions to the user."""
    found: list[str] = []
    rejected_with_reason = set()
    for item in interventions(phase):
        if item.kind == "rejection" and item.call:
            rejected_with_reason.add(item.call)
            found.append(_rejection_gate(item))
    for rejected in unreasoned_rejections(phase):
        if rejected not in rejected_with_reason:
            found.append(f"approve {inline_code(rejected)}; the user rejected it in the session")
    found += [f"approve the memos: {memo}" for memo in memo_decisions(phase)]
    for call in phase.tool_calls():
        if call_type(call) == "CHAT_WITH_USER":
            question = call_target(call) or call.summary
            found.append(f"the user answers: {question}" if question else "the user answers")
    return list(dict.fromkeys(found))


def _rejection_gate(item: Intervention) -> str:
    return (
        f"approve {inline_code(item.call or '')}; the user rejected it in the session: "
        f"{quote(item.words)}"
    )


def _invokes(phase: Phase) -> list[str]:
    linked = []
    for callout in phase.callouts("subagent"):
        agent = subagent_agent(callout)
        link = subagent_link(callout)
        if agent:
            linked.append(f"@{agent}" + (f" [[{link}]]" if link else ""))
    if linked:
        return linked
    calls = phase.tool_calls()
    return [f"@{call_target(c)}" for c in calls if call_type(c) == "INVOKE" and call_target(c)]
