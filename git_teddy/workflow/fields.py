"""A step's fields as written (pure): the `- key: value` lines under a step heading checked
and read into a Step, every problem reported with its line.
"""

import re
from dataclasses import dataclass

from git_teddy.artifacts.plan.validate import Problem
from git_teddy.artifacts.sessionlog.parse import split_code_span
from git_teddy.workflow.model import ARROW, FIELDS, NONE, Port, Step

FIELD_HINT = "a step's list items are fields: " + ", ".join(f"`- {f}: ...`" for f in FIELDS)
FLOW_HINT = (
    "write `- flow: `in.md`: file, `https://x`: url → `out.py`: file`; "
    f"`{NONE}` for an empty side; the `: type` after each item is optional"
)

_TYPE = re.compile(r"\s*:\s*(?P<type>[A-Za-z][\w.\-\[\]|/]*)")
_INVOKE = re.compile(r"@(?P<agent>\S+)(?: \[\[(?P<session>[^\]]+)\]\])?")


@dataclass
class StepDraft:
    """A step being read: its heading's line and the raw fields, checked once complete."""

    line: int
    title: str
    agent: str
    channel: str
    fields: list[tuple[int, str, str]]  # line, key, value
    description: list[str]


def join_lines(lines: list[str]) -> str:
    """Free text as written, without the blank lines around it."""
    return "\n".join(lines).strip("\n")


def check_step(draft: StepDraft, problems: list[Problem]) -> Step:
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
        description=join_lines(draft.description),
        inputs=inputs,
        outputs=outputs,
        checks=[_parse_check(number, value, problems) for number, value in values["check"]],
        gates=[value for _, value in values["gate"]],
        when=values["when"][0][1] if values["when"] else None,
        on_failure=values["on_failure"][0][1] if values["on_failure"] else None,
        invokes=[value for _, value in values["invoke"]],
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
        name, rest = _code_span(rest)
        typed = _TYPE.match(rest)
        ports.append(Port(name=name, type=typed["type"] if typed else None))
        rest = rest[typed.end() :] if typed else rest
        if not rest.lstrip().startswith(","):
            return ports, rest
        rest = rest.lstrip()[1:].lstrip()


def _parse_check(number: int, value: str, problems: list[Problem]) -> str:
    try:
        command, rest = _code_span(value)
        if rest.strip():
            raise ValueError(f"unexpected text after the command: {rest.strip()!r}")
    except ValueError as error:
        problems.append(Problem(number, f"check: {error}", "write `- check: `command``"))
        return value
    return command


def _code_span(text: str) -> tuple[str, str]:
    """split_code_span, with errors worded for a workflow's author rather than a log's."""
    if not text.startswith("`"):
        raise ValueError(f"expected a `code span`, found {text[:20]!r}")
    try:
        return split_code_span(text)
    except ValueError:
        raise ValueError(f"unclosed code span: {text[:40]!r}") from None
