"""What a phase says (pure), shared by codify (git_teddy.workflow) and learn: the turn's
message, the user's rejections and replies, memo decisions, the decisions taken so far, the
subagents' phases, and what a phase did or planned. Every sentence build.py writes is read
through its pair in callouts.py, never matched here.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from git_teddy.artifacts.names import subagent_session_id
from git_teddy.artifacts.sessionlog.build import one_line
from git_teddy.artifacts.sessionlog.callouts import (
    UserKind,
    inline_work,
    read_acted_on,
    read_memos_decision,
    read_unreasoned_rejection,
    read_user,
    subagent_link,
)
from git_teddy.artifacts.sessionlog.model import Callout, Phase, SessionLog, ToolCall
from git_teddy.artifacts.sessionlog.parse import parse_phases
from git_teddy.artifacts.sessionlog.render import inline_code, render_call

# ---- the user's words ------------------------------------------------------------------------


@dataclass(frozen=True)
class Intervention:
    """A `[!user]` callout: the turn's message, a rejection's reason, or a reply."""

    kind: UserKind
    words: str
    acted_on: str
    call: str | None = None  # the rejected call


def intervention(callout: Callout) -> Intervention:
    words, acted_on = read_user(callout)
    kind, call = read_acted_on(acted_on)
    return Intervention(kind, words, acted_on, call)


def interventions(phase: Phase) -> list[Intervention]:
    return [intervention(callout) for callout in phase.callouts("user")]


def turn_message(phase: Phase) -> str:
    """The user's message the turn was planned from ('' when the log has none)."""
    return next((i.words for i in interventions(phase) if i.kind == "message"), "")


def quote(text: str) -> str:
    """Words on one line between double quotes (for gates and conditions)."""
    return f'"{one_line(text)}"'


def blockquote(text: str) -> str:
    """Words as a Markdown block quote: never read as a heading or a list item."""
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


# ---- decisions -------------------------------------------------------------------------------


def unreasoned_rejections(phase: Phase) -> list[str]:
    """Calls the user rejected in this phase without giving a reason."""
    calls = map(read_unreasoned_rejection, phase.callouts("decision"))
    return [call for call in calls if call is not None]


def memo_decisions(phase: Phase) -> list[str]:
    """Memo changes the user approved in this phase (`[+] text`, `[-] text`)."""
    found = []
    for callout in phase.callouts("decision"):
        memos = read_memos_decision(callout)
        if memos and memos[0] == "approved":
            found += memos[1]
    return found


def decisions_before(log: SessionLog, index: int, block: object) -> list[str]:
    """Every `[!decision]` of the phases before `index`, and those of the phase at `index`
    placed before `block`."""
    found = [c.body for p in log.phases[:index] for c in p.callouts("decision")]
    for item in log.phases[index].blocks:
        if item is block:
            break
        if isinstance(item, Callout) and item.kind == "decision":
            found.append(item.body)
    return found


# ---- subagents -------------------------------------------------------------------------------


def subagent_phases(callout: Callout, linked: Mapping[str, SessionLog]) -> list[Phase]:
    """The phases of the subagent a `[!subagent]` callout logs: those of its linked or
    embedded log (when `linked` has it), or those written inline in the callout."""
    link = subagent_link(callout)
    if link is not None:
        sub = linked.get(link)
        return list(sub.phases) if sub else []
    lines = inline_work(callout)
    if lines is None:
        return []
    try:
        return parse_phases(lines, 3)
    except (ValueError, IndexError):
        return []  # an inline log edited by hand into something else: left out


def expand_subagents(log: SessionLog, linked: Mapping[str, SessionLog]) -> list[Phase]:
    """The log's phases with each subagent's phases after the phase that invoked it: the
    order in which the turns happened."""
    phases: list[Phase] = []
    for phase in log.phases:
        phases.append(phase)
        for callout in phase.callouts("subagent"):
            phases += subagent_phases(callout, linked)
    return phases


def inline_subagent_logs(log: SessionLog) -> list[SessionLog]:
    """The subagents logged inline (`teddy.subagentMode inline`) as logs of their own, named
    as build.py names linked ones (subagent_session_id)."""
    logs = []
    for phase in log.phases:
        for callout in phase.callouts("subagent"):
            phases = [] if subagent_link(callout) else subagent_phases(callout, {})
            logs += [_subagent_log(log, phases)] if phases else []
    return logs


def _subagent_log(parent: SessionLog, phases: list[Phase]) -> SessionLog:
    name = phases[0].agent.split("@")[0]
    session_id = subagent_session_id(parent.meta.session_id, phases[0].turn, name)
    update = {"session_id": session_id, "parent_session": parent.meta.session_id}
    return SessionLog(meta=parent.meta.model_copy(update=update), phases=phases)


# ---- what a phase did ------------------------------------------------------------------------


def ran_calls(phase: Phase) -> list[ToolCall]:
    """The calls that ran, whether they succeeded or failed (not those rejected or skipped)."""
    return [call for call in phase.tool_calls() if call.status in ("success", "failure")]


def did(phase: Phase) -> str:
    """What a phase did: its title and the calls that ran."""
    ran = ran_calls(phase)
    lines = [f"Turn {phase.turn} ({phase.title}) ran:"] + [render_call(c) for c in ran]
    return "\n".join(lines) if ran else f"Turn {phase.turn} ({phase.title}) ran no actions."


def planned(phase: Phase) -> str:
    """A phase's plan: its title and every action it had, whatever became of them."""
    calls = [f"- {inline_code(c.call)}" for c in phase.tool_calls()]
    head = f"The valid plan “{phase.title}”"
    return "\n".join([f"{head} had the actions:", *calls]) if calls else f"{head} had no actions."
