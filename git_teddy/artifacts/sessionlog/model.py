"""The session log as data (pure): frontmatter, one phase per turn, and the blocks of a phase.

Callouts are kept generic (kind, one-line title, multi-line body) so that the Markdown
parses back exactly; `build` decides what each kind says, readers interpret it.
"""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Status = Literal["active", "paused", "completed"]
CalloutKind = Literal["decision", "error", "user", "subagent"]
CallStatus = Literal["success", "failure", "skipped", "rejected"]
TaskStatus = Literal["pending", "in_progress", "completed"]
SubagentMode = Literal["inline", "link", "embed"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class SubagentEntry(_Model):
    """A subagent's work, as the frontmatter lists it: its turns are not phases of the
    invoking log, so what `list` and `stats` count of them is said here."""

    session: str
    agent: str  # name@version
    model: str | None = None
    tokens: int = 0
    turns: int = 0
    executed: int = 0  # turns that ran: status other than planned
    failures: int = 0
    cost: float | None = None  # None: no turn's cost is known


class SessionMeta(BaseModel):
    """The frontmatter. Unknown keys are dropped, missing ones take their defaults, so logs
    written by older versions still read."""

    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    type: Literal["session"] = "session"
    session_id: str
    started: str
    ended: str | None = None
    status: Status = "active"
    channel: str = "cli"
    parent_session: str | None = None  # set on a subagent's own session log
    participants: list[str] = Field(default_factory=list)  # name@version
    model: str | None = None  # the primary model: the one that planned most turns
    tokens_used: int = 0
    subagents: list[SubagentEntry] = Field(default_factory=list)
    resume_point: str | None = None  # a turn name

    def summary_rows(self) -> list[tuple[str, str]]:
        """The frontmatter as `show` and the review page list it: the fields that have a value."""
        subagents = ", ".join(f"{s.session} ({s.tokens:,} tokens)" for s in self.subagents)
        rows = [
            ("status", self.status),
            ("started", self.started),
            ("ended", self.ended),
            ("channel", self.channel),
            ("participants", ", ".join(self.participants)),
            ("model", self.model),
            ("tokens", f"{self.tokens_used:,}"),
            ("subagents", subagents),
            ("resume point", self.resume_point and f"turn {self.resume_point}"),
            ("parent session", self.parent_session),
        ]
        return [(key, value) for key, value in rows if value]


class ToolCall(_Model):
    call: str  # `EDIT src/app.py`: one line, as call_line writes it
    summary: str = ""  # one line, at most SUMMARY_LIMIT characters
    status: CallStatus = "success"


def call_line(action_type: str, target: str | None) -> str:
    """A tool call's `call`: `EDIT src/app.py`, `EXECUTE pytest -q`, `CONCLUDE`."""
    return f"{action_type} {target}" if target else action_type


def call_type(call: ToolCall) -> str:
    """`EDIT` of `EDIT src/app.py`."""
    return call.call.split(" ", 1)[0]


def call_target(call: ToolCall) -> str:
    """`src/app.py` of `EDIT src/app.py`: a path, command, resource, agent or question."""
    parts = call.call.split(" ", 1)
    return parts[1].strip() if len(parts) > 1 else ""


class ToolCalls(_Model):
    kind: Literal["tool_calls"] = "tool_calls"
    calls: list[ToolCall]


class Task(_Model):
    id: str
    content: str
    status: TaskStatus
    priority: Literal["high", "medium", "low"] = "medium"


class Tasks(_Model):
    kind: Literal["tasks"] = "tasks"
    tasks: list[Task]


class Callout(_Model):
    kind: CalloutKind
    title: str = ""  # the rest of the `> [!kind]` line
    body: str = ""  # the callout's lines, without their `> `


Block = Annotated[Callout | ToolCalls | Tasks, Field(discriminator="kind")]


class Phase(_Model):
    title: str
    agent: str  # name@version, or name when the version is unknown
    channel: str
    turn: str  # the turn's name: the phase id that resume_point refers to
    time: str
    status: str  # the turn's status: planned, SUCCESS, FAILURE, ...
    model: str | None = None
    tokens: int | None = None
    cost: float | None = None
    blocks: list[Block] = Field(default_factory=list)

    def figures(self) -> list[str]:
        """Status, time, model, tokens and cost, as `show` and the review page list them."""
        figures = [self.status, self.time]
        if self.model:
            figures.append(self.model)
        if self.tokens is not None:
            figures.append(f"{self.tokens:,} tokens")
        if self.cost is not None:
            figures.append(f"${self.cost:.4f}")
        return figures

    def callouts(self, kind: CalloutKind) -> list[Callout]:
        return [b for b in self.blocks if isinstance(b, Callout) and b.kind == kind]

    def tool_calls(self) -> list[ToolCall]:
        return [call for b in self.blocks if isinstance(b, ToolCalls) for call in b.calls]


class SessionLog(_Model):
    meta: SessionMeta
    phases: list[Phase] = Field(default_factory=list)

    def phase(self, turn: str) -> Phase | None:
        return next((p for p in self.phases if p.turn == turn), None)
