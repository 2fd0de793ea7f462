"""`session.md` from a SessionLog (pure). Every line it writes, parse.py reads back."""

import json
import re

from git_teddy.artifacts import frontmatter
from git_teddy.artifacts.sessionlog.model import (
    Block,
    Callout,
    CallStatus,
    Phase,
    SessionLog,
    Tasks,
    ToolCall,
)

CALL_MARKERS: dict[CallStatus, str] = {
    "success": "",
    "failure": "❌ ",
    "skipped": "⏭️ ",
    "rejected": "🚫 ",
}
SEPARATOR = " · "


def render_log(log: SessionLog) -> str:
    meta = log.meta.model_dump(mode="json", exclude_none=True)
    parts = [f"# Session {log.meta.session_id}"]
    parts += [render_phase(phase) for phase in log.phases]
    return frontmatter.render(meta, "\n" + "\n\n".join(parts) + "\n")


def render_phase(phase: Phase, level: int = 2) -> str:
    heading = f"{'#' * level} {phase.title} @{phase.agent} #{phase.channel}"
    return "\n\n".join([heading, phase_meta_line(phase), *map(render_block, phase.blocks)])


def phase_meta_line(phase: Phase) -> str:
    fields = [f"turn {phase.turn}", phase.time, phase.status]
    if phase.model is not None:
        fields.append(f"model {phase.model}")
    if phase.tokens is not None:
        fields.append(f"{phase.tokens} tokens")
    if phase.cost is not None:
        fields.append(f"${phase.cost!r}")
    return f"*{SEPARATOR.join(fields)}*"


def render_block(block: Block) -> str:
    if isinstance(block, Callout):
        return render_callout(block)
    if isinstance(block, Tasks):
        rows = ",\n".join(json.dumps(t.model_dump(), ensure_ascii=False) for t in block.tasks)
        return f"```tasks\n[\n{rows}\n]\n```"
    return "**Tool calls:**\n" + "\n".join(render_call(call) for call in block.calls)


def render_callout(callout: Callout) -> str:
    head = f"> [!{callout.kind}]" + (f" {callout.title}" if callout.title else "")
    lines = callout.body.split("\n") if callout.body else []
    return "\n".join([head, *(f"> {line}" if line else ">" for line in lines)])


def render_call(call: ToolCall) -> str:
    summary = f" → {call.summary}" if call.summary else ""
    return f"- {CALL_MARKERS[call.status]}{inline_code(call.call)}{summary}"


def inline_code(text: str) -> str:
    """CommonMark code span: a backtick run longer than any inside, padded with a space on
    each side when the text starts or ends with a backtick or with spaces on both ends
    (so that stripping the padding gives the text back)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    edges = text[:1] + text[-1:]
    pad = " " if "`" in edges or (text.startswith(" ") and text.endswith(" ")) else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"
