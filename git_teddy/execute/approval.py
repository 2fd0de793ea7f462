"""What the person approving a plan is shown of its memos and actions: one line per action,
its full content or diff on request, the memo changes. The asking is the UI's (git_teddy.ui)."""

import difflib

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
