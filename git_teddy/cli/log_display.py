"""The session log for a terminal (pure): metadata, then each phase with its callouts drawn
as coloured bars. Styles are ANSI codes that the caller's `click.echo` keeps or drops as
git_teddy.cli.color decides (by default: kept on a terminal, dropped when piped)."""

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


def display_log(log: SessionLog) -> str:
    return "\n\n".join([display_meta(log), *(display_phase(p) for p in log.phases)]) + "\n"


def display_meta(log: SessionLog) -> str:
    meta = log.meta
    rows = [
        ("status", meta.status),
        ("started", meta.started),
        ("ended", meta.ended),
        ("channel", meta.channel),
        ("participants", ", ".join(meta.participants)),
        ("model", meta.model),
        ("tokens", f"{meta.tokens_used:,}"),
        ("subagents", ", ".join(f"{s.session} ({s.tokens:,} tokens)" for s in meta.subagents)),
        ("resume point", meta.resume_point and f"turn {meta.resume_point}"),
    ]
    title = click.style(f"Session log of {meta.session_id}", bold=True)
    lines = [f"  {key:<13}{value}" for key, value in rows if value]
    return "\n".join([title, *lines])


def display_phase(phase: Phase) -> str:
    heading = click.style(f"── {phase.turn} · {phase.title}", bold=True)
    who = click.style(f"@{phase.agent} #{phase.channel}", fg="blue")
    figures = [phase.status, phase.time]
    if phase.model:
        figures.append(phase.model)
    if phase.tokens is not None:
        figures.append(f"{phase.tokens:,} tokens")
    if phase.cost is not None:
        figures.append(f"${phase.cost:.4f}")
    lines = [f"{heading}  {who}", click.style("   " + " · ".join(figures), dim=True)]
    lines += [display_block(block) for block in phase.blocks]
    return "\n".join(lines)


def display_block(block: Block) -> str:
    if isinstance(block, Callout):
        return display_callout(block)
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


def display_callout(callout: Callout) -> str:
    color = CALLOUT_COLORS[callout.kind]
    bar = click.style("   ▌", fg=color)
    label = click.style(callout.kind.upper(), fg=color, bold=True)
    head = f"{bar} {label}" + (f" {callout.title}" if callout.title else "")
    body = [f"{bar} {line}" for line in callout.body.split("\n")] if callout.body else []
    return "\n".join([head, *body])
