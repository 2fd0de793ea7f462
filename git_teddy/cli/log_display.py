"""The session log for a terminal (pure): metadata, then each phase with its callouts drawn
as coloured bars. Styles are ANSI codes that the caller's `click.echo` keeps or drops as
git_teddy.cli.color decides (by default: kept on a terminal, dropped when piped)."""

from collections.abc import Mapping
from typing import TypeVar

import click
from pydantic import BaseModel

from git_teddy.artifacts.sessionlog.model import Block, Callout, Phase, SessionLog, Tasks, ToolCalls
from git_teddy.printable import printable

CALLOUT_COLORS = {"decision": "yellow", "error": "red", "user": "cyan", "subagent": "magenta"}
CALL_SIGNS = {
    "success": ("✔", "green"),
    "failure": ("✘", "red"),
    "skipped": ("⏭", "white"),
    "rejected": ("⊘", "yellow"),
}
TASK_SIGNS = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}


T = TypeVar("T")


def escaped(value: T) -> T:
    """`value` (a model, list, dict or text) with the control characters of every text in
    it escaped (git_teddy.printable): the log's own styles are added after, its content's
    never reach the terminal."""
    if isinstance(value, str):
        return printable(value)  # type: ignore[return-value]
    if isinstance(value, BaseModel):
        fields = type(value).model_fields
        return value.model_copy(update={k: escaped(getattr(value, k)) for k in fields})
    if isinstance(value, list):
        return [escaped(item) for item in value]  # type: ignore[return-value]
    if isinstance(value, dict):
        return {key: escaped(item) for key, item in value.items()}  # type: ignore[return-value]
    return value


def display_log(log: SessionLog, embeds: Mapping[str, SessionLog] | None = None) -> str:
    """The log, its content escaped; a subagent it embeds (`![[id]]`) is drawn in its
    callout from `embeds`."""
    log = escaped(log)
    embeds = {key: escaped(sub) for key, sub in (embeds or {}).items()}
    phases = [display_phase(p, embeds) for p in log.phases]
    return "\n\n".join([display_meta(log), *phases]) + "\n"


def display_meta(log: SessionLog) -> str:
    meta = log.meta
    title = click.style(f"Session log of {meta.session_id}", bold=True)
    lines = [f"  {key:<15}{value}" for key, value in meta.summary_rows()]
    return "\n".join([title, *lines])


def display_phase(phase: Phase, embeds: Mapping[str, SessionLog]) -> str:
    heading = click.style(f"── {phase.turn} · {phase.title}", bold=True)
    who = click.style(f"@{phase.agent} #{phase.channel}", fg="blue")
    figures = phase.figures()
    lines = [f"{heading}  {who}", click.style("   " + " · ".join(figures), dim=True)]
    lines += [display_block(block, embeds) for block in phase.blocks]
    return "\n".join(lines)


def display_block(block: Block, embeds: Mapping[str, SessionLog]) -> str:
    if isinstance(block, Callout):
        return display_callout(block, embeds)
    if isinstance(block, ToolCalls):
        rows = []
        for call in block.calls:
            sign, color = CALL_SIGNS[call.status]
            summary = f" → {call.summary}" if call.summary else ""
            rows.append(f"   {click.style(sign, fg=color)} {call.call}{summary}")
        return "\n".join(["   Tool calls:", *rows])
    assert isinstance(block, Tasks)
    rows = [f"   {TASK_SIGNS[task.status]} {task.content}" for task in block.tasks]
    return "\n".join(["   Tasks:", *rows])


def display_callout(callout: Callout, embeds: Mapping[str, SessionLog]) -> str:
    color = CALLOUT_COLORS[callout.kind]
    bar = click.style("   ▌", fg=color)
    label = click.style(callout.kind.upper(), fg=color, bold=True)
    head = f"{bar} {label}" + (f" {callout.title}" if callout.title else "")
    lines = callout.body.split("\n") if callout.body else []
    body = [f"{bar} {line}" for line in _expanded(lines, embeds)]
    return "\n".join([head, *body])


def _expanded(lines: list[str], embeds: Mapping[str, SessionLog]) -> list[str]:
    """A callout's lines with each `![[id]]` it embeds replaced by that log's phases."""
    out: list[str] = []
    for line in lines:
        sub = embeds.get(line[3:-2]) if line.startswith("![[") and line.endswith("]]") else None
        if sub is None:
            out.append(line)
            continue
        out.append(f"embedded: {sub.meta.session_id}")
        for phase in sub.phases:
            out += [row.removeprefix("   ") for row in display_phase(phase, embeds).split("\n")]
    return out
