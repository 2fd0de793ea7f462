"""Asking the user to approve memos and actions (or approving them all with `-y`)."""

import difflib
from dataclasses import dataclass
from typing import Literal

import click

from git_teddy.artifacts.plan.models import (
    Action,
    ChatWithUser,
    Conclude,
    Create,
    EditFile,
    Execute,
    Invoke,
    Memo,
    Prune,
    Read,
    Research,
)

Verdict = Literal["approved", "auto", "rejected", "quit"]
CHOICES = "[y]es [n]o [d]iff [a]ll remaining [q]uit"


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str | None = None


def _target(action: Action) -> str:
    if isinstance(action, Create | EditFile):
        return action.path
    if isinstance(action, Read | Prune):
        return action.resource
    if isinstance(action, Execute):
        lines = action.command.strip().splitlines()
        return lines[0] + (" ..." if len(lines) > 1 else "") if lines else ""
    if isinstance(action, Research):
        return "; ".join(query.strip() for query in action.queries)
    if isinstance(action, Invoke):
        return action.agent
    return ""


def describe(action: Action) -> str:
    """One line naming what the action does."""
    text = f"{action.type} {_target(action)}".strip()
    description = getattr(action, "description", None)
    return f"{text} - {description}" if description else text


def preview(action: Action) -> str:
    """The full content, diff or command an action would apply."""
    if isinstance(action, Create):
        return action.content
    if isinstance(action, EditFile):
        diffs = []
        for edit in action.edits:
            lines = difflib.unified_diff(
                edit.find.splitlines(),
                edit.replace.splitlines(),
                f"a/{action.path}",
                f"b/{action.path}",
                lineterm="",
            )
            diffs.append("\n".join(lines))
        return "\n".join(diffs)
    if isinstance(action, Execute):
        extra = [f"cwd: {action.cwd}"] if action.cwd else []
        extra += [f"env: {k}={v}" for k, v in action.env.items()]
        return "\n".join([*extra, action.command])
    if isinstance(action, ChatWithUser | Invoke | Conclude):
        return action.message
    return describe(action)


def format_memos(memos: list[Memo]) -> str:
    return "\n".join(
        f"  [{m.op}] {m.text}" + (f"  # {m.comment}" if m.comment else "") for m in memos
    )


class Approver:
    """Interactive by default; `auto` approves everything; `quit` skips the rest."""

    def __init__(self, auto: bool) -> None:
        self.auto = auto
        self.approve_rest = False

    def memos(self, memos: list[Memo]) -> bool:
        click.echo("Proposed memo changes:\n" + format_memos(memos))
        if self.auto:
            return True
        return click.confirm("Approve these memory updates?", default=True)

    def action(self, index: int, total: int, action: Action) -> Decision:
        click.echo(f"\n[{index}/{total}] {describe(action)}")
        if self.auto or self.approve_rest:
            return Decision("auto")
        while True:
            answer = click.prompt(CHOICES, default="y", show_default=False).strip().lower()
            if answer in ("y", "yes"):
                return Decision("approved")
            if answer in ("n", "no"):
                reason = click.prompt("Reason (optional)", default="", show_default=False)
                return Decision("rejected", reason.strip() or None)
            if answer in ("d", "diff"):
                click.echo(preview(action))
            elif answer in ("a", "all"):
                self.approve_rest = True
                return Decision("approved")
            elif answer in ("q", "quit"):
                return Decision("quit")
            else:
                click.echo(f"please answer one of {CHOICES}")

    def reply(self, message: str) -> str | None:
        click.echo(f"\nThe model says:\n{message}\n")
        if self.auto:
            return None
        reply: str = click.prompt("Your reply (empty to skip)", default="", show_default=False)
        return reply.strip() or None

    def apply(self) -> bool:
        return self.auto or click.confirm("Apply the result to your working tree?", default=True)
