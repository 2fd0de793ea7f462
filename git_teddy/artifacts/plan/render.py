"""`Plan` -> Markdown in the layout of spec 004, with dynamic fencing.

Parsing the result gives the same plan back, as long as the free-text fields hold what the
format can carry: one-line titles, metadata values and descriptions, memo text without a
` #` (it starts a comment), and messages that are plain Markdown without `#`-`###` headings.
"""

import re
from pathlib import PurePosixPath

from git_teddy.artifacts.plan.fences import fence_for
from git_teddy.artifacts.plan.models import (
    Action,
    ChatWithUser,
    Conclude,
    Create,
    EditFile,
    Execute,
    Invoke,
    Memo,
    Plan,
    Prune,
    Read,
    Research,
)


def render_plan(plan: Plan) -> str:
    parts = [_header(plan), _rationale(plan.rationale)]
    if plan.memos:
        parts.append(_memos(plan.memos))
    parts.append("## Action Plan")
    parts.extend(render_action(action) for action in plan.actions)
    return "\n\n".join(parts) + "\n"


def render_action(action: Action) -> str:
    return f"### `{action.type}`\n{_body(action)}"


def _body(action: Action) -> str:
    match action:
        case Create():
            return _create(action)
        case Read() | Prune():
            return _metadata(resource=link(action.resource), description=action.description)
        case EditFile():
            return _edit(action)
        case Execute():
            return _execute(action)
        case Research():
            return _research(action)
        case ChatWithUser():
            return action.message
        case Invoke():
            meta = _metadata(agent=action.agent) + _handoff(action.handoff_resources)
            return f"{meta}\n{action.message}"
        case Conclude():
            meta = _handoff(action.handoff_resources)
            return f"{meta}\n{action.message}" if meta else action.message


def block(content: str, info: str = "") -> str:
    """A fenced block holding `content` exactly (a final newline is implied, not added)."""
    text = content if content.endswith("\n") or not content else content + "\n"
    fence = fence_for(text)
    return f"{fence}{info}\n{text}{fence}"


def link(resource: str) -> str:
    """A root-relative link for a project path, a plain link for a URL."""
    is_url = "://" in resource or resource.startswith("www.")
    destination = resource if is_url else "/" + resource
    if re.search(r"[\s()<>]", destination):
        destination = f"<{destination}>"
    return f"[{resource}]({destination})"


def _header(plan: Plan) -> str:
    lines = [f"# {plan.title}"]
    lines += [f"- **{key}:** {value}" for key, value in plan.metadata.items()]
    return "\n".join(lines)


def _rationale(text: str) -> str:
    # One empty line more than the text, because the parser drops the block's final newline.
    return "## Rationale\n" + block(text + "\n", "text")


def _memos(memos: list[Memo]) -> str:
    lines = [
        f"[{memo.op}] {memo.text}" + (f" # {memo.comment}" if memo.comment else "")
        for memo in memos
    ]
    return "## Memos\n" + block("\n".join(lines) + "\n")


def _metadata(**values: str | None) -> str:
    labels = {
        "path": "File Path",
        "resource": "Resource",
        "description": "Description",
        "expected_outcome": "Expected Outcome",
        "cwd": "cwd",
        "agent": "Agent",
        "overwrite": "Overwrite",
        "expect_failure": "Expected To Fail",
    }
    return "".join(
        f"- **{labels[key]}:** {value}\n" for key, value in values.items() if value is not None
    )


def _language(path: str) -> str:
    suffix = PurePosixPath(path).suffix.lstrip(".")
    return {"md": "markdown", "py": "python", "sh": "shell", "": "text"}.get(suffix, suffix)


def _create(action: Create) -> str:
    overwrite = "yes" if action.overwrite else None
    meta = _metadata(path=link(action.path), description=action.description, overwrite=overwrite)
    return meta + block(action.content, _language(action.path))


def _read(action: Read) -> str:
    return _metadata(resource=link(action.resource), description=action.description).rstrip()


def _edit(action: EditFile) -> str:
    meta = _metadata(path=link(action.path), description=action.description)
    language = _language(action.path)
    pairs = [
        f"`FIND:`\n{block(edit.find + chr(10), language)}\n"
        f"`REPLACE:`\n{block(edit.replace + chr(10), language)}"
        for edit in action.edits
    ]
    return meta + "\n" + "\n\n".join(pairs)


def _execute(action: Execute) -> str:
    meta = _metadata(
        description=action.description,
        expected_outcome=action.expected_outcome,
        cwd=action.cwd,
        expect_failure="yes" if action.expect_failure else None,
    )
    if action.env:
        meta += "- **env:**\n" + "".join(
            f'    - `{name}`: "{value}"\n' for name, value in action.env.items()
        )
    return meta + block(action.command + "\n", "shell")


def _research(action: Research) -> str:
    meta = _metadata(description=action.description)
    return meta + "\n".join(block(query + "\n", "text") for query in action.queries)


def _handoff(resources: list[str]) -> str:
    if not resources:
        return ""
    return "- **Handoff Resources:**\n" + "".join(f"  - {link(r)}\n" for r in resources)
