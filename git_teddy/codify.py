"""Workflows from session logs (pure): the workflow markup of docs/workflows.md as data,
its renderer and its parser/validator, the extract of a SessionLog, and the messages that
ask a model to refine an extract.

A workflow is frontmatter (`type: workflow`, name, source_session, agents, channel, created)
and one `## <step> @agent #channel` heading per step, whose list items are fields:
`- flow: inputs → outputs`, `- check: `cmd``, `- gate: ...`, `- when: ...`,
`- on_failure: <step>`, `- invoke: @agent [[session]]`; other lines describe the step.
"""

import datetime as dt
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from git_teddy.learn import (
    Intervention,
    blockquote,
    call_target,
    call_type,
    code_span,
    expand_subagents,
    interventions,
    memo_decisions,
    quote,
    turn_message,
    unreasoned_rejections,
)
from git_teddy.plan.validate import Problem, format_problems
from git_teddy.session import frontmatter
from git_teddy.sessionlog.callouts import read_resolution, subagent_link
from git_teddy.sessionlog.model import Phase, SessionLog, ToolCall
from git_teddy.sessionlog.render import inline_code

ARROW = "→"
NONE = "none"  # an empty side of a flow
FIELDS = ("flow", "check", "gate", "when", "on_failure", "invoke")
REQUIRED_KEYS = ("type", "name", "agents", "channel")
OPTIONAL_KEYS = ("source_session", "created", "description")

_STEP = re.compile(r"## (?P<title>.*\S) @(?P<agent>\S+) #(?P<channel>\S+)")
_AGENT = re.compile(r"[A-Za-z0-9][\w.-]*(?:@[\w.+-]+)?")
_TYPE = re.compile(r"\s*:\s*(?P<type>[A-Za-z][\w.\-\[\]|/]*)")
_FIELD = re.compile(r"- (?P<key>[a-z_]+):(?: (?P<value>.*))?")
_INVOKE = re.compile(r"@(?P<agent>\S+)(?: \[\[(?P<session>[^\]]+)\]\])?")
_SESSION_ID = re.compile(r"\d{8}-(?P<slug>.+)")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Port(_Model):
    """One input or output of a step: a file, URL, query..., with an optional type."""

    name: str
    type: str | None = None


class Step(_Model):
    title: str
    agent: str  # name@version, or name
    channel: str
    description: str = ""  # free Markdown, never a `- ` or `#` line
    inputs: list[Port] = Field(default_factory=list)
    outputs: list[Port] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)  # commands that verify the step
    gates: list[str] = Field(default_factory=list)  # where a human must approve
    when: str | None = None  # the step runs only when this holds
    on_failure: str | None = None  # the title of the step that repairs a failure
    invokes: list[str] = Field(default_factory=list)  # `@agent` or `@agent [[session]]`


class WorkflowMeta(_Model):
    type: str = "workflow"
    name: str
    source_session: str | None = None
    agents: list[str]
    channel: str
    created: str | None = None
    description: str | None = None


class Workflow(_Model):
    meta: WorkflowMeta
    title: str | None = None  # the `# ` line
    description: str = ""  # text before the first step
    steps: list[Step]


# ---- rendering -------------------------------------------------------------------------------


def render_workflow(workflow: Workflow) -> str:
    meta = workflow.meta.model_dump(exclude_none=True)
    parts = [f"# {workflow.title}"] if workflow.title else []
    parts += [workflow.description] if workflow.description else []
    parts += [render_step(step) for step in workflow.steps]
    return frontmatter.render(meta, "\n" + "\n\n".join(parts) + "\n")


def render_step(step: Step) -> str:
    heading = f"## {step.title} @{step.agent} #{step.channel}"
    fields = [f"- flow: {render_ports(step.inputs)} {ARROW} {render_ports(step.outputs)}"]
    fields += [f"- check: {inline_code(check)}" for check in step.checks]
    fields += [f"- gate: {gate}" for gate in step.gates]
    fields += [f"- when: {step.when}"] if step.when else []
    fields += [f"- on_failure: {step.on_failure}"] if step.on_failure else []
    fields += [f"- invoke: {invoke}" for invoke in step.invokes]
    parts = [heading, *([step.description] if step.description else []), "\n".join(fields)]
    return "\n\n".join(parts)


def render_ports(ports: list[Port]) -> str:
    if not ports:
        return NONE
    return ", ".join(inline_code(p.name) + (f": {p.type}" if p.type else "") for p in ports)


# ---- parsing and validation ------------------------------------------------------------------


@dataclass
class _Draft:
    """A step being read: its heading's line and the raw fields, checked once complete."""

    line: int
    title: str
    agent: str
    channel: str
    fields: list[tuple[int, str, str]]  # line, key, value
    description: list[str]


def parse_workflow(text: str) -> tuple[Workflow | None, list[Problem]]:
    """The workflow in `text` and every problem found (in line order); the workflow is None
    whenever there is a problem, so a caller never uses half a workflow."""
    meta, body, offset, problems = _parse_frontmatter(text)
    title, description, drafts, body_problems = _parse_body(body.split("\n"), offset)
    problems += body_problems
    steps = [_check_step(draft, problems) for draft in drafts]
    problems += _check_steps(drafts, meta)
    if not drafts:
        problems.append(Problem(offset, "the workflow has no steps", STEP_HINT))
    problems.sort(key=lambda problem: problem.line)
    if problems or meta is None:
        return None, problems
    return Workflow(meta=meta, title=title, description=description, steps=steps), []


def check_workflow(text: str) -> Workflow:
    """The workflow in `text`, or a WorkflowError listing every problem."""
    workflow, problems = parse_workflow(text)
    if workflow is None:
        raise WorkflowError(problems)
    return workflow


class WorkflowError(ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(format_problems(problems))
        self.problems = problems


STEP_HINT = "write each step as `## <step> @agent #channel` followed by `- flow: in → out`"
FRONTMATTER_HINT = (
    "start with `---`, then `type: workflow`, `name`, `agents` (a list), `channel`, "
    "optionally `source_session`, `created` and `description`, then `---`"
)


def _parse_frontmatter(text: str) -> tuple[WorkflowMeta | None, str, int, list[Problem]]:
    """(meta, body, line number of the body's first line, problems)."""
    if not text.startswith("---\n") or "\n---\n" not in text[3:]:
        return None, text, 1, [Problem(1, "no frontmatter between `---` lines", FRONTMATTER_HINT)]
    end = text.index("\n---\n", 3)
    header, body = text[4 : end + 1], text[end + 5 :]
    offset = text[: end + 5].count("\n") + 1
    try:
        data = yaml.safe_load(header)
    except yaml.YAMLError as error:
        return None, body, offset, [Problem(1, f"frontmatter: {error}", FRONTMATTER_HINT)]
    if not isinstance(data, dict):
        problem = Problem(1, "the frontmatter is not a mapping of keys", FRONTMATTER_HINT)
        return None, body, offset, [problem]
    meta, problems = _check_meta(data, header.split("\n"))
    return meta, body, offset, problems


def _check_meta(
    data: dict[Any, Any], lines: list[str]
) -> tuple[WorkflowMeta | None, list[Problem]]:
    def line(key: object) -> int:  # where the key is written (its document line), else 1
        found = [n for n, text in enumerate(lines, start=2) if text.startswith(f"{key}:")]
        return found[0] if found else 1

    problems = [
        Problem(line(key), f"unknown frontmatter key `{key}`", FRONTMATTER_HINT)
        for key in data
        if key not in REQUIRED_KEYS + OPTIONAL_KEYS
    ]
    problems += [
        Problem(1, f"the frontmatter has no `{key}`", FRONTMATTER_HINT)
        for key in REQUIRED_KEYS
        if key not in data
    ]
    if data.get("type", "workflow") != "workflow":
        message = f"type is {data['type']!r}, not workflow"
        problems.append(Problem(line("type"), message, FRONTMATTER_HINT))
    fields = {key: _scalar(data[key]) for key in ("name", "channel", *OPTIONAL_KEYS) if key in data}
    for key, value in fields.items():
        if value is None or (key in ("name", "channel") and not value.strip()):
            message = f"`{key}` must be a non-empty text"
            problems.append(Problem(line(key), message, FRONTMATTER_HINT))
    agents = data.get("agents", [])
    if not isinstance(agents, list) or not all(
        isinstance(a, str) and _AGENT.fullmatch(a) for a in agents
    ):
        hint = "e.g. `agents: [pathfinder@1.0, dev]`: names, each with an optional @version"
        problems.append(Problem(line("agents"), "`agents` must be a list of agent names", hint))
    if problems:
        return None, problems
    return WorkflowMeta.model_validate({**fields, "agents": agents}), []


def _scalar(value: object) -> str | None:
    """YAML reads an unquoted `created: 2026-11-26T12:00:00Z` as a datetime: keep it as text."""
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _parse_body(
    lines: list[str], offset: int
) -> tuple[str | None, str, list[_Draft], list[Problem]]:
    title: str | None = None
    preamble: list[str] = []
    drafts: list[_Draft] = []
    problems: list[Problem] = []
    for number, line in enumerate(lines, start=offset):
        draft = drafts[-1] if drafts else None
        if line.startswith("## ") or line == "##":
            heading = _STEP.fullmatch(line.rstrip())
            if heading is None:
                problems.append(
                    Problem(number, "step heading without @agent and #channel", STEP_HINT)
                )
                continue
            drafts.append(
                _Draft(number, heading["title"], heading["agent"], heading["channel"], [], [])
            )
        elif (
            line.startswith("# ")
            and title is None
            and draft is None
            and not "".join(preamble).strip()
        ):
            title = line[2:].strip()
        elif line.startswith("#"):
            hint = "only one `# ` title before the steps and `## ` step headings are allowed"
            problems.append(Problem(number, f"unexpected heading {line!r}", hint))
        elif line.startswith("- ") or line == "-":
            if draft is None:
                hint = "fields belong to a step: put them under its `## ` heading"
                problems.append(Problem(number, "a list item before the first step", hint))
                continue
            field = _FIELD.fullmatch(line.rstrip())
            if field is None or field["key"] not in FIELDS:
                problems.append(Problem(number, f"not a step field: {line!r}", FIELD_HINT))
                continue
            draft.fields.append((number, field["key"], (field["value"] or "").strip()))
        elif draft is None:
            preamble.append(line)
        else:
            draft.description.append(line)
    return title, _text(preamble), drafts, problems


FIELD_HINT = "a step's list items are fields: " + ", ".join(f"`- {f}: ...`" for f in FIELDS)


def _text(lines: list[str]) -> str:
    return "\n".join(lines).strip("\n")


def _check_step(draft: _Draft, problems: list[Problem]) -> Step:
    """The step a draft describes; what is wrong with its fields goes into `problems`."""
    values: dict[str, list[tuple[int, str]]] = {key: [] for key in FIELDS}
    for number, key, value in draft.fields:
        if not value:
            problems.append(Problem(number, f"`{key}` has no value", FIELD_HINT))
        else:
            values[key].append((number, value))
    where = f"step {draft.title!r}"
    flows = values["flow"]
    if len(flows) != 1:
        line = flows[1][0] if flows[1:] else draft.line
        problems.append(Problem(line, f"{where} needs exactly one `flow`", FLOW_HINT))
    inputs, outputs = _parse_flow(flows[0], problems) if flows else ([], [])
    for key in ("when", "on_failure"):
        if len(values[key]) > 1:
            problems.append(
                Problem(values[key][1][0], f"{where} has more than one `{key}`", FIELD_HINT)
            )
    for number, value in values["invoke"]:
        if _INVOKE.fullmatch(value) is None:
            hint = "write `- invoke: @agent` or `- invoke: @agent [[session-id]]`"
            problems.append(Problem(number, f"invoke: {value!r} is not an agent", hint))
    return Step(
        title=draft.title,
        agent=draft.agent,
        channel=draft.channel,
        description=_text(draft.description),
        inputs=inputs,
        outputs=outputs,
        checks=[_parse_check(number, value, problems) for number, value in values["check"]],
        gates=[value for _, value in values["gate"]],
        when=values["when"][0][1] if values["when"] else None,
        on_failure=values["on_failure"][0][1] if values["on_failure"] else None,
        invokes=[value for _, value in values["invoke"]],
    )


FLOW_HINT = (
    "write `- flow: `in.md`: file, `https://x`: url → `out.py`: file`; "
    f"`{NONE}` for an empty side; the `: type` after each item is optional"
)


def _parse_flow(flow: tuple[int, str], problems: list[Problem]) -> tuple[list[Port], list[Port]]:
    number, text = flow
    try:
        inputs, rest = _parse_ports(text)
        rest = rest.lstrip()
        arrow = next((a for a in (ARROW, "->") if rest.startswith(a)), None)
        if arrow is None:
            raise ValueError(f"expected {ARROW} after the inputs, found {rest[:20]!r}")
        outputs, rest = _parse_ports(rest[len(arrow) :])
        if rest.strip():
            raise ValueError(f"unexpected text after the outputs: {rest.strip()!r}")
    except ValueError as error:
        problems.append(Problem(number, f"flow: {error}", FLOW_HINT))
        return [], []
    return inputs, outputs


def _parse_ports(text: str) -> tuple[list[Port], str]:
    """Ports from the start of `text` up to what follows them."""
    rest = text.lstrip()
    if rest.startswith(NONE) and not rest[len(NONE) :][:1].isalnum():
        return [], rest[len(NONE) :]
    ports: list[Port] = []
    while True:
        name, rest = code_span(rest)
        typed = _TYPE.match(rest)
        ports.append(Port(name=name, type=typed["type"] if typed else None))
        rest = rest[typed.end() :] if typed else rest
        if not rest.lstrip().startswith(","):
            return ports, rest
        rest = rest.lstrip()[1:].lstrip()


def _parse_check(number: int, value: str, problems: list[Problem]) -> str:
    try:
        command, rest = code_span(value)
        if rest.strip():
            raise ValueError(f"unexpected text after the command: {rest.strip()!r}")
    except ValueError as error:
        problems.append(Problem(number, f"check: {error}", "write `- check: `command``"))
        return value
    return command


def _check_steps(drafts: list[_Draft], meta: WorkflowMeta | None) -> list[Problem]:
    """What only the whole list of steps tells: unique titles, known agents, references."""
    problems: list[Problem] = []
    titles: set[str] = set()
    for draft in drafts:
        if draft.title in titles:
            hint = "step titles name steps (on_failure refers to them): make each unique"
            problems.append(Problem(draft.line, f"a second step titled {draft.title!r}", hint))
        titles.add(draft.title)
        if meta is not None and draft.agent not in meta.agents:
            hint = "list every step's agent in the frontmatter's `agents`"
            problems.append(Problem(draft.line, f"@{draft.agent} is not in `agents`", hint))
    for draft in drafts:
        for number, key, value in draft.fields:
            if key == "on_failure" and value and (value not in titles or value == draft.title):
                hint = "name another step by its exact title"
                problems.append(Problem(number, f"on_failure: no other step {value!r}", hint))
    return problems


# ---- the extract of a session ----------------------------------------------------------------


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
                entries.append((turn, failed_call(callout.body) or ""))
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


def failed_call(body: str) -> str | None:
    """The call an `[!error]` body names: it starts with "`CALL` failed: ..."."""
    try:
        call, rest = code_span(body)
    except ValueError:
        return None
    return call if rest.startswith(" failed") else None


def _step(
    phase: Phase,
    title: str,
    repairs: list[tuple[str, str]],
    by_turn: Mapping[str, str],
    when: str | None,
) -> Step:
    done = [call for call in phase.tool_calls() if call.status in ("success", "failure")]
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
        agent = callout.title.split(" ")[0].removeprefix("@")
        link = subagent_link(callout)
        if agent:
            linked.append(f"@{agent}" + (f" [[{link}]]" if link else ""))
    if linked:
        return linked
    calls = phase.tool_calls()
    return [f"@{call_target(c)}" for c in calls if call_type(c) == "INVOKE" and call_target(c)]


# ---- refining with a model -------------------------------------------------------------------

REFINE_SYSTEM = f"""You refine workflows that git-teddy extracted from AI pair-programming \
sessions. You get the session log (spec 003 session.md) and the extracted workflow. Reply \
with the improved workflow document only: no commentary, no code fence around it.

Improve it:
- clean up: clear imperative step titles, drop steps that did nothing useful, merge steps \
that are one piece of work, generalise session-specific details into reusable instructions;
- add a type annotation to every input and output (`name`: type), e.g. file, url, query, \
python-module, test-file, markdown, json;
- clarify conditional flows: `- when: <condition>` on a step that runs only sometimes, and \
`- on_failure: <exact title of another step>` on a step whose failure leads to a repair step;
- keep every gate where a human must approve, and keep `source_session`.

The workflow markup (docs/workflows.md), exactly:
- YAML frontmatter between `---` lines with the keys `type: workflow`, `name`, \
`source_session`, `agents` (a list of `name` or `name@version`), `channel`, `created`, and \
optionally `description`; no other keys.
- Optionally one `# Title` line and free text before the first step.
- One `## <step title> @<agent> #<channel>` heading per step; titles are unique and the \
agent is listed in `agents`.
- Under a step, free text (never starting with `- ` or `#`) describes it; its list items \
are fields, one per line:
  - `- flow: <inputs> {ARROW} <outputs>`: exactly one per step; each side is `{NONE}` or a \
comma-separated list of code spans, each optionally followed by `: type`;
  - `- check: `command``: a command that verifies the step (any number);
  - `- gate: <text>`: where a human must approve, and what (any number);
  - `- when: <condition>`: at most one;
  - `- on_failure: <title of another step>`: at most one;
  - `- invoke: @agent` or `- invoke: @agent [[session-id]]`: a subagent the step hands off to.
"""


def refine_payload(session_log: str, extract: str) -> str:
    return (
        "## The session log\n\n"
        f"{session_log.rstrip()}\n\n"
        "## The extracted workflow\n\n"
        f"{extract.rstrip()}\n"
    )


def refine_retry_message(problems: list[Problem]) -> str:
    return (
        "Your workflow could not be used. Fix every problem below and reply with the complete "
        "corrected workflow document, nothing else.\n\n" + format_problems(problems)
    )


def check_refined(text: str, session: str) -> tuple[Workflow | None, list[Problem]]:
    """A model's reply as a workflow: a fence around the whole reply is forgiven, the
    source session must stay the one the workflow was codified from."""
    workflow, problems = parse_workflow(unwrap_fence(text))
    if workflow is not None and workflow.meta.source_session != session:
        hint = f"keep `source_session: {session}` in the frontmatter"
        return None, [Problem(1, f"source_session is not {session}", hint)]
    return workflow, problems


def unwrap_fence(text: str) -> str:
    """The document inside a code fence that wraps the whole reply (models add them)."""
    match = re.fullmatch(r"\s*(`{3,}|~{3,})[\w-]*\n(?P<body>.*?)\n\1\s*", text, re.DOTALL)
    return match["body"] + "\n" if match else text
