"""The session log for a terminal (pure): metadata, then each phase with its callouts drawn
as coloured bars. Styles are ANSI codes that the caller's `click.echo` keeps or drops as
git_teddy.cli.color decides (by default: kept on a terminal, dropped when piped)."""

from collections.abc import Mapping

import click

from git_teddy.artifacts.sessionlog.model import Block, Callout, Phase, SessionLog, Tasks, ToolCalls

CALLOUT_COLORS = {"decision": "yellow", "error": "red", "user": "cyan", "subagent": "magenta"}
CALL_SIGNS = {
    "success": ("✔", "green"),
    "failure": ("✘", "red"),
    "skipped": ("⏭", "white"),
    "rejected": ("⊘", "yellow"),
}
TASK_SIGNS = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}


def display_log(log: SessionLog, embeds: Mapping[str, SessionLog] | None = None) -> str:
    """The log; a subagent it embeds (`![[id]]`) is drawn in its callout from `embeds`."""
    phases = [display_phase(p, embeds or {}) for p in log.phases]
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
