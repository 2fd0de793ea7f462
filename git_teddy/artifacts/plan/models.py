"""The plan as data: one pydantic model per action, discriminated by `type`.

Field names are the keys of `git teddy validate --json`. Each action remembers the line of
its heading (`line`, not serialized) so that later stages can point at it in messages.
"""

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

ACTION_TYPES = (
    "CREATE",
    "READ",
    "EDIT",
    "EXECUTE",
    "RESEARCH",
    "CHAT_WITH_USER",
    "INVOKE",
    "CONCLUDE",
    "PRUNE",
)


def normalize_action_name(name: str) -> str:
    """`create`, ` Chat With User `, `chat-with-user` -> the canonical upper-case name."""
    bare = name.strip().strip("`*_ ").strip()
    return re.sub(r"[\s\-]+", "_", bare).upper()


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Memo(_Model):
    op: Literal["+", "-"]
    text: str
    comment: str | None = None


class Edit(_Model):
    find: str
    replace: str


class _Action(_Model):
    line: int = Field(default=0, exclude=True)


class Create(_Action):
    type: Literal["CREATE"] = "CREATE"
    path: str
    description: str | None = None
    content: str
    # `- **Overwrite:** yes` lets CREATE replace an existing file. Left out of the JSON, whose
    # shape the validate command fixes.
    overwrite: bool = Field(default=False, exclude=True)


class Read(_Action):
    type: Literal["READ"] = "READ"
    resource: str
    kind: Literal["file", "url"]
    description: str | None = None


class EditFile(_Action):
    type: Literal["EDIT"] = "EDIT"
    path: str
    description: str | None = None
    edits: list[Edit]


class Execute(_Action):
    type: Literal["EXECUTE"] = "EXECUTE"
    command: str
    description: str | None = None
    expected_outcome: str | None = None
    cwd: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    expect_failure: bool = Field(default=False, exclude=True)  # `Expected To Fail: yes`: red test


class Research(_Action):
    type: Literal["RESEARCH"] = "RESEARCH"
    description: str | None = None
    queries: list[str]


class ChatWithUser(_Action):
    type: Literal["CHAT_WITH_USER"] = "CHAT_WITH_USER"
    message: str


class Invoke(_Action):
    type: Literal["INVOKE"] = "INVOKE"
    agent: str
    handoff_resources: list[str] = Field(default_factory=list)
    message: str


class Conclude(_Action):
    type: Literal["CONCLUDE"] = "CONCLUDE"
    handoff_resources: list[str] = Field(default_factory=list)
    message: str


class Prune(_Action):
    type: Literal["PRUNE"] = "PRUNE"
    resource: str
    description: str | None = None


Action = Annotated[
    Create | Read | EditFile | Execute | Research | ChatWithUser | Invoke | Conclude | Prune,
    Field(discriminator="type"),
]


class Plan(_Model):
    title: str
    metadata: dict[str, str] = Field(default_factory=dict)
    rationale: str
    memos: list[Memo] = Field(default_factory=list)
    actions: list[Action] = Field(default_factory=list)
