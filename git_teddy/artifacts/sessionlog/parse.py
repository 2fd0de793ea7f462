"""A SessionLog from `session.md` (pure): the inverse of render.py, tolerant of logs
written before phases were logged (frontmatter only)."""

import json
import re
from collections.abc import Iterator

from git_teddy.artifacts import frontmatter
from git_teddy.artifacts.sessionlog.model import (
    Block,
    Callout,
    CallStatus,
    Phase,
    SessionLog,
    SessionMeta,
    Task,
    Tasks,
    ToolCall,
    ToolCalls,
)
from git_teddy.artifacts.sessionlog.render import CALL_MARKERS, SEPARATOR
from git_teddy.errors import TeddyError

_HEADING = re.compile(r"(?P<title>.*) @(?P<agent>\S+) #(?P<channel>\S+)")
_CALLOUT = re.compile(r"> \[!(?P<kind>[a-z]+)\](?: (?P<title>.*))?")


def parse_log(text: str, where: str = "session.md", blocks: bool = True) -> SessionLog:
    """The log; without `blocks`, each phase's heading and figures alone (what the session
    index needs, in a fifth of the time), its callouts, tasks and tool calls not read."""
    try:
        data, body = frontmatter.parse(text)
        meta = SessionMeta.model_validate(data)
        return SessionLog(meta=meta, phases=parse_phases(body.split("\n"), 2, blocks))
    except (ValueError, IndexError) as error:
        raise TeddyError(
            f"{where} is not a session log: {str(error).splitlines()[0]}",
            "it is regenerated from the turns by the next session commit",
        ) from None


def parse_phases(lines: list[str], level: int, blocks: bool = True) -> list[Phase]:
    marker = "#" * level + " "
    starts = [i for i, line in enumerate(lines) if line.startswith(marker)]
    ends = [*starts[1:], len(lines)]
    return [
        parse_phase(lines[start:end], level, blocks)
        for start, end in zip(starts, ends, strict=False)
    ]


def parse_phase(lines: list[str], level: int, blocks: bool = True) -> Phase:
    heading = _HEADING.fullmatch(lines[0][level + 1 :])
    if heading is None:
        raise ValueError(f"phase heading without @agent and #channel: {lines[0]!r}")
    meta = _parse_meta_line(lines[2] if len(lines) > 2 else "")
    read = list(_parse_blocks(lines[3:])) if blocks else []
    fields = {**heading.groupdict(), **meta, "blocks": read}
    return Phase.model_validate(fields)


def _parse_meta_line(line: str) -> dict[str, object]:
    if not (line.startswith("*") and line.endswith("*")):
        raise ValueError(f"phase without its `*turn ...*` line: {line!r}")
    turn, time, status, *rest = line[1:-1].split(SEPARATOR)
    meta: dict[str, object] = {"turn": turn.removeprefix("turn "), "time": time, "status": status}
    for field in rest:
        if field.startswith("model "):
            meta["model"] = field.removeprefix("model ")
        elif field.endswith(" tokens"):
            meta["tokens"] = int(field.removesuffix(" tokens"))
        elif field.startswith("$"):
            meta["cost"] = float(field[1:])
    return meta


def _parse_blocks(lines: list[str]) -> Iterator[Block]:
    i = 0
    while i < len(lines):
        line = lines[i]
        end = i + 1
        if line.startswith("> [!"):
            while end < len(lines) and lines[end].startswith(">"):
                end += 1
            yield _parse_callout(lines[i:end])
        elif line == "```tasks":
            end = lines.index("```", i + 1) + 1
            tasks = json.loads("\n".join(lines[i + 1 : end - 1]))
            yield Tasks(tasks=[Task.model_validate(task) for task in tasks])
        elif line == "**Tool calls:**":
            while end < len(lines) and lines[end].startswith("- "):
                end += 1
            yield ToolCalls(calls=[_parse_call(item[2:]) for item in lines[i + 1 : end]])
        elif line.strip():
            raise ValueError(f"unexpected line in a phase: {line!r}")
        i = end


def _parse_callout(lines: list[str]) -> Block:
    head = _CALLOUT.fullmatch(lines[0])
    if head is None:
        raise ValueError(f"bad callout line: {lines[0]!r}")
    body = "\n".join(line[2:] if line.startswith("> ") else "" for line in lines[1:])
    return Callout.model_validate(
        {"kind": head["kind"], "title": head["title"] or "", "body": body}
    )


def _parse_call(item: str) -> ToolCall:
    status, item = _call_status(item)
    call, rest = split_code_span(item)
    return ToolCall(call=call, summary=rest.removeprefix(" → "), status=status)


def _call_status(item: str) -> tuple[CallStatus, str]:
    for status, mark in CALL_MARKERS.items():
        if mark and item.startswith(mark):
            return status, item.removeprefix(mark)
    return "success", item


def split_code_span(text: str) -> tuple[str, str]:
    ticks = len(text) - len(text.lstrip("`"))
    if ticks == 0:
        raise ValueError(f"tool call without a code span: {text!r}")
    fence = "`" * ticks
    for match in re.finditer(f"(?<!`){fence}(?!`)", text[ticks:]):
        content = text[ticks : ticks + match.start()]
        if len(content) > 1 and content.startswith(" ") and content.endswith(" "):
            content = content[1:-1]  # render.inline_code's padding
        return content, text[ticks + match.end() :]
    raise ValueError(f"unclosed code span: {text!r}")
