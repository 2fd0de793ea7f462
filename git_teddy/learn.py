"""Learning cases from session logs (pure): puzzles from `[!error]` callouts and correction
examples from the user's interventions, exported as chat-format jsonl, Markdown, or one
Markdown file per case.

Also the readers of what a phase's callouts and tool calls say (build.py writes them),
shared with codify.py: the turn's message, rejections, replies, memo decisions.
"""

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from git_teddy.session import frontmatter
from git_teddy.sessionlog.callouts import read_resolution, read_user, subagent_link
from git_teddy.sessionlog.model import Callout, Phase, SessionLog, ToolCall
from git_teddy.sessionlog.parse import parse_phases
from git_teddy.sessionlog.render import inline_code, render_call

CaseType = Literal["puzzle", "correction"]
CASE_TYPES: tuple[str, ...] = ("puzzle", "correction")
EXPORTS: tuple[str, ...] = ("jsonl", "markdown", "puzzle")

# How build.py says what a `[!user]` callout's words were acted on.
_REJECTED = re.compile(r"rejected (?P<call>`.*)")
_REPLY = "answer to "
_UNREASONED = re.compile(r"The user rejected (?P<call>`.*)")
_MEMOS = re.compile(r"Memos (?P<verb>approved|rejected by the user|proposed):\n(?P<memos>.*)", re.S)


# ---- reading a phase -------------------------------------------------------------------------


def code_span(text: str) -> tuple[str, str]:
    """The content of the CommonMark code span `text` starts with, and the text after it.
    Raises ValueError when `text` does not start with a closed code span."""
    ticks = len(text) - len(text.lstrip("`"))
    if ticks == 0:
        raise ValueError(f"expected a `code span`, found {text[:20]!r}")
    for match in re.finditer(f"(?<!`){'`' * ticks}(?!`)", text[ticks:]):
        content = text[ticks : ticks + match.start()]
        if len(content) > 1 and content.startswith(" ") and content.endswith(" "):
            content = content[1:-1]  # render.inline_code's padding
        return content, text[ticks + match.end() :]
    raise ValueError(f"unclosed code span: {text[:40]!r}")


def call_type(call: ToolCall) -> str:
    """`EDIT` of `EDIT src/app.py`."""
    return call.call.split(" ", 1)[0]


def call_target(call: ToolCall) -> str:
    """`src/app.py` of `EDIT src/app.py`: a path, command, resource, agent or question."""
    parts = call.call.split(" ", 1)
    return parts[1].strip() if len(parts) > 1 else ""


def quote(text: str) -> str:
    """Words on one line between double quotes (for gates and conditions)."""
    return f'"{one_line(text)}"'


def one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Intervention:
    """A `[!user]` callout: the turn's message, a rejection's reason, or a reply."""

    kind: Literal["message", "rejection", "reply"]
    words: str
    acted_on: str
    call: str | None = None  # the rejected call


def intervention(callout: Callout) -> Intervention:
    words, acted_on = read_user(callout)
    rejected = _REJECTED.match(acted_on)
    if rejected:
        try:
            call, _ = code_span(rejected["call"])
        except ValueError:
            call = None
        return Intervention("rejection", words, acted_on, call)
    if acted_on.startswith(_REPLY):
        return Intervention("reply", words, acted_on)
    return Intervention("message", words, acted_on)


def interventions(phase: Phase) -> list[Intervention]:
    return [intervention(callout) for callout in phase.callouts("user")]


def turn_message(phase: Phase) -> str:
    """The user's message the turn was planned from ('' when the log has none)."""
    return next((i.words for i in interventions(phase) if i.kind == "message"), "")


def unreasoned_rejections(phase: Phase) -> list[str]:
    """Calls the user rejected in this phase without giving a reason."""
    calls = []
    for callout in phase.callouts("decision"):
        match = _UNREASONED.match(callout.body)
        if match:
            try:
                calls.append(code_span(match["call"])[0])
            except ValueError:
                continue
    return calls


def memo_decisions(phase: Phase) -> list[str]:
    """Memo changes the user approved in this phase (`[+] text`, `[-] text`)."""
    found = []
    for callout in phase.callouts("decision"):
        match = _MEMOS.match(callout.body)
        if match and match["verb"] == "approved":
            found += [line for line in match["memos"].split("\n") if line.strip()]
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


def subagent_phases(callout: Callout, linked: Mapping[str, SessionLog]) -> list[Phase]:
    """The phases of the subagent a `[!subagent]` callout logs: those of its linked or
    embedded log (when `linked` has it), or those written inline in the callout."""
    link = subagent_link(callout)
    if link is not None:
        sub = linked.get(link)
        return list(sub.phases) if sub else []
    lines = callout.body.split("\n")
    if lines[0] != "mode: inline":
        return []
    try:
        return parse_phases(lines[1:], 3)
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
    as build.py names linked ones: `<session>.<first turn>-<agent>`."""
    logs = []
    for phase in log.phases:
        for callout in phase.callouts("subagent"):
            phases = [] if subagent_link(callout) else subagent_phases(callout, {})
            if phases:
                name = phases[0].agent.split("@")[0]
                meta = log.meta.model_copy(
                    update={
                        "session_id": f"{log.meta.session_id}.{phases[0].turn}-{name}",
                        "parent_session": log.meta.session_id,
                    }
                )
                logs.append(SessionLog(meta=meta, phases=phases))
    return logs


def did(phase: Phase) -> str:
    """What a phase did: its title and the calls that ran (not those rejected or skipped)."""
    ran = [c for c in phase.tool_calls() if c.status in ("success", "failure")]
    lines = [f"Turn {phase.turn} ({phase.title}) ran:"] + [render_call(c) for c in ran]
    return "\n".join(lines) if ran else f"Turn {phase.turn} ({phase.title}) ran no actions."


def planned(phase: Phase) -> str:
    """A phase's plan: its title and every action it had, whatever became of them."""
    calls = [f"- {inline_code(c.call)}" for c in phase.tool_calls()]
    head = f"The valid plan “{phase.title}”"
    return "\n".join([f"{head} had the actions:", *calls]) if calls else f"{head} had no actions."


# ---- cases -----------------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CaseMeta(_Model):
    """What a training pipeline filters on."""

    type: CaseType
    session: str
    turn: str
    agent: str
    model: str | None
    channel: str


class Case(_Model):
    metadata: CaseMeta
    title: str  # the phase's title: the task at hand
    request: str  # the user's message for the turn
    decisions: list[str]  # decisions taken before the failure or correction
    behaviour: str  # puzzle: what failed; correction: what the agent planned or did
    correction: str | None = None  # correction: the user's words
    expected: str | None = None  # how the failure was resolved, or the correct behaviour
    resolved_in: str | None = None  # puzzle: the turn that resolved it

    @property
    def name(self) -> str:
        """A file-name-safe id, unique within the cases of one log."""
        meta = self.metadata
        return re.sub(r"[^\w.-]", "_", f"{meta.session}-{meta.turn}-{meta.type}")


def learn_cases(log: SessionLog, types: tuple[str, ...] = CASE_TYPES) -> list[Case]:
    """The log's puzzles and corrections, in the order they happened."""
    cases: list[Case] = []
    for index, phase in enumerate(log.phases):
        for block in phase.blocks:
            if not isinstance(block, Callout):
                continue
            if block.kind == "error" and "puzzle" in types:
                cases.append(puzzle(log, index, block))
            elif block.kind == "user" and "correction" in types:
                found = correction(log, index, block)
                cases += [found] if found else []
    return cases


def _meta(log: SessionLog, phase: Phase, kind: CaseType) -> CaseMeta:
    return CaseMeta(
        type=kind,
        session=log.meta.session_id,
        turn=phase.turn,
        agent=phase.agent,
        model=phase.model,
        channel=phase.channel,
    )


def puzzle(log: SessionLog, index: int, error: Callout) -> Case:
    """Context (task, request, decisions so far), failure, and the expected behaviour: how
    it was resolved and what the resolving turn did."""
    phase = log.phases[index]
    turn, how = read_resolution(error)
    expected = None
    if turn is not None:
        fixer = log.phase(turn)
        expected = f"Resolved in turn {turn}" + (f": {how}" if how else "") + "."
        # Repaired within its own turn (an invalid reply): the plan that replaced it.
        shown = planned(fixer) if fixer is phase else did(fixer) if fixer else None
        expected += f"\n\n{shown}" if shown else ""
    return Case(
        metadata=_meta(log, phase, "puzzle"),
        title=phase.title,
        request=turn_message(phase),
        decisions=decisions_before(log, index, error),
        behaviour=error.body,
        expected=expected,
        resolved_in=turn,
    )


def correction(log: SessionLog, index: int, callout: Callout) -> Case | None:
    """A rejection with a reason or a reply to a question: what the agent planned, the
    user's words, and what was done instead (a rejection: the rest of the turn the user let
    run, else the next turn; a reply: the next turn, which the reply started)."""
    phase = log.phases[index]
    after = log.phases[index + 1] if index + 1 < len(log.phases) else None
    item = intervention(callout)
    if item.kind == "message":
        return None
    if item.kind == "rejection":
        behaviour = f"Planned {inline_code(item.call or '')}"
        others = [c for c in phase.tool_calls() if c.status in ("success", "failure")]
        expected = did(phase) if others else (did(after) if after else None)
    else:
        asked = [c for c in phase.tool_calls() if call_type(c) == "CHAT_WITH_USER"]
        behaviour = "Asked the user: " + (call_target(asked[0]) if asked else item.acted_on)
        expected = did(after) if after else None
    return Case(
        metadata=_meta(log, phase, "correction"),
        title=phase.title,
        request=turn_message(phase),
        decisions=decisions_before(log, index, callout),
        behaviour=behaviour,
        correction=item.words,
        expected=expected,
    )


def number_cases(cases: list[Case]) -> list[tuple[str, Case]]:
    """Unique names: `<session>-<turn>-<type>-<n>`, n counting within the turn."""
    counts: dict[str, int] = {}
    named = []
    for case in cases:
        counts[case.name] = counts.get(case.name, 0) + 1
        named.append((f"{case.name}-{counts[case.name]}", case))
    return named


def dedupe(cases: list[Case]) -> list[Case]:
    """Conversation branches share the turns before their branch point: one case each."""
    seen: set[str] = set()
    result = []
    for case in cases:
        key = case.model_dump_json()
        if key not in seen:
            seen.add(key)
            result.append(case)
    return result


# ---- exports ---------------------------------------------------------------------------------


def system_prompt(case: Case) -> str:
    agent = case.metadata.agent.split("@")[0]
    return (
        f"You are {agent}, an AI agent pair-programming with a user in git-teddy: you plan "
        "each turn as actions (READ, CREATE, EDIT, EXECUTE, CHAT_WITH_USER, INVOKE...) that "
        "the user approves."
    )


def user_prompt(case: Case) -> str:
    parts = [f"Task: {case.title}"]
    parts += [f"The user's request:\n{blockquote(case.request)}"] if case.request else []
    if case.decisions:
        parts.append("Decisions so far:\n" + "\n".join(f"- {one_line(d)}" for d in case.decisions))
    if case.metadata.type == "puzzle":
        parts += [f"This failed:\n{case.behaviour}", "What do you do next?"]
    else:
        parts += [f"You did this:\n{case.behaviour}"]
        parts += [f"The user answered:\n{blockquote(case.correction or '')}", "What do you do now?"]
    return "\n\n".join(parts)


def jsonl_line(case: Case) -> str | None:
    """One chat-format fine-tuning example; None when no correct behaviour is known."""
    if case.expected is None:
        return None
    messages = [
        {"role": "system", "content": system_prompt(case)},
        {"role": "user", "content": user_prompt(case)},
        {"role": "assistant", "content": case.expected},
    ]
    record = {"messages": messages, "metadata": case.metadata.model_dump()}
    return json.dumps(record, ensure_ascii=False)


def export_jsonl(cases: list[Case]) -> str:
    lines = [line for line in map(jsonl_line, cases) if line is not None]
    return "".join(line + "\n" for line in lines)


def _sections(case: Case, level: int) -> Iterator[str]:
    heading = "#" * level
    context = [f"Task: {case.title}"]
    context += [f"Request:\n\n{blockquote(case.request)}"] if case.request else []
    if case.decisions:
        context.append(
            "Decisions so far:\n" + "\n".join(f"- {one_line(d)}" for d in case.decisions)
        )
    yield f"{heading} Context\n\n" + "\n\n".join(context)
    if case.metadata.type == "puzzle":
        yield f"{heading} Failure\n\n{fenced(case.behaviour)}"
        yield f"{heading} Expected behaviour\n\n{case.expected or 'Unresolved: not known yet.'}"
    else:
        yield f"{heading} Agent behaviour\n\n{case.behaviour}"
        yield f"{heading} User correction\n\n{blockquote(case.correction or '')}"
        expected = case.expected or "Not known: the session ends here."
        yield f"{heading} Correct behaviour\n\n{expected}"


def blockquote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def fenced(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _metadata_line(case: Case) -> str:
    meta = case.metadata
    fields = [f"session {meta.session}", f"turn {meta.turn}", f"@{meta.agent}", f"#{meta.channel}"]
    fields += [f"model {meta.model}"] if meta.model else []
    return "*" + " · ".join(fields) + "*"


def case_title(case: Case) -> str:
    return f"{case.metadata.type.capitalize()}: {case.title}"


def export_markdown(cases: list[Case]) -> str:
    parts = ["# Learning cases", f"{len(cases)} case(s) from git-teddy session logs."]
    for case in cases:
        parts += [f"## {case_title(case)}", _metadata_line(case), *_sections(case, 3)]
    return "\n\n".join(parts) + "\n"


def puzzle_file(case: Case) -> str:
    """One case as a Markdown file; its frontmatter is the metadata (for filtering)."""
    meta = case.metadata.model_dump(exclude_none=True)
    meta |= {"resolved_in": case.resolved_in} if case.resolved_in else {}
    body = "\n\n".join([f"# {case_title(case)}", *_sections(case, 2)])
    return frontmatter.render(meta, "\n" + body + "\n")


def export_puzzles(cases: list[Case]) -> dict[str, str]:
    """File name -> content: one Markdown file per case."""
    return {f"{name}.md": puzzle_file(case) for name, case in number_cases(cases)}
