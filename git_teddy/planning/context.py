"""What a turn's model sees (pure): the context cascade, resource lists, and `_context.log`.

Context files list one resource per line: a path, a glob or an http(s) URL; `#` at the start
of a line or after a space starts a comment. The cascade merges `.teddy/global.context`, the
session's `session.context` and the turn's `turn.context` (what the previous turn had, plus
its READs, minus its PRUNEs). The previous completed turn's plan, report and prompt are
listed in the new `turn.context` as `session:<turn>/<file>` entries (spec 002 4.1), kept
until PRUNEd, and `--context-depth N` adds N turns before it; `!PATH` lines of
`session.context` exclude entries (artifacts/context_list.py).
"""

import fnmatch
from dataclasses import dataclass

from git_teddy.artifacts.context_list import entry_of
from git_teddy.artifacts.folder import PLAN, REPORT, USER_PROMPT
from git_teddy.artifacts.languages import fence_language
from git_teddy.artifacts.plan.fences import fence_for
from git_teddy.artifacts.read_parts import split_part
from git_teddy.artifacts.report import ExecutionReport

GLOB_CHARS = set("*?[")
HISTORY_FILES = (USER_PROMPT, PLAN, REPORT)


def parse_context(text: str) -> list[str]:
    entries: list[str] = []
    for line in text.splitlines():
        entry = entry_of(line)
        if entry and entry not in entries:
            entries.append(entry)
    return entries


def render_context(entries: list[str]) -> str:
    return "".join(f"{entry}\n" for entry in entries)


def merge(*layers: list[str]) -> list[str]:
    """The cascade: every entry once, in the order the layers give them."""
    return list(dict.fromkeys(entry for layer in layers for entry in layer))


def next_turn_context(previous: list[str], report: ExecutionReport | None) -> list[str]:
    """The previous turn's resources with its successful READs added and PRUNEs removed."""
    entries = list(previous)
    for log in report.action_logs if report else []:
        resource = log.params.get("resource")
        if log.status != "SUCCESS" or not isinstance(resource, str):
            continue
        if log.action_type == "READ" and resource not in entries:
            entries.append(resource)
        elif log.action_type == "PRUNE":
            entries = [e for e in entries if e != resource]
    return entries


def is_url(entry: str) -> bool:
    return entry.startswith(("http://", "https://"))


def expand(entries: list[str], project_files: list[str] | None) -> list[str]:
    """Globs replaced by the project files they match (sorted); paths and URLs kept.
    `project_files` is needed only when some entry is a glob."""
    resources: list[str] = []
    for entry in entries:
        path = entry.lstrip("/")
        if is_url(entry) or not GLOB_CHARS & set(path):
            resources.append(entry if is_url(entry) else path)
            continue
        resources.extend(sorted(fnmatch.filter(project_files or [], path)))
    return list(dict.fromkeys(resources))


@dataclass(frozen=True)
class Resource:
    """One resource as the model sees it: its content, or a note saying why there is none."""

    name: str  # a project path, a URL, or `session:<turn>/<file>` for history
    tokens: int
    text: str | None
    note: str | None = None


def _fence_info(name: str) -> str:
    """A web page arrives as extracted text, whatever its address ends with."""
    return "text" if is_url(name) else fence_language(split_part(name)[0])


def _fenced(text: str, language: str = "text") -> str:
    fence = fence_for(text)
    return f"{fence}{language}\n{text}{'' if text.endswith(chr(10)) else chr(10)}{fence}\n"


def _resource_label(name: str) -> str:
    if is_url(name) or name.startswith("session:"):
        return f"`{name}`"
    return f"`[{name}](/{name})`"


def render_resources(resources: list[Resource]) -> str:
    parts = ["## 5. Resource Contents\n"]
    for resource in resources:
        parts.append(f"\n---\n**Resource:** {_resource_label(resource.name)}\n")
        parts.append(f"**Tokens:** {resource.tokens}\n")
        if resource.note:
            parts.append(f"**Note:** {resource.note}\n")
        if resource.text is not None:
            parts.append(_fenced(resource.text, _fence_info(resource.name)))
    return "".join(parts)


def recorded_urls(context_log: str) -> dict[str, Resource]:
    """The web pages a recorded `_context.log` holds (its Resource Contents, as
    render_resources wrote them, read block by block so that no resource's text is taken
    for a block): a conversation branch is planned on the same context as the turn it
    replaces (spec 000), so its pages are reused, never fetched again. A page recorded
    without its text (refused, not fetched) is left out: it is asked for anew."""
    found: dict[str, Resource] = {}
    lines = context_log.split("\n")
    heading = "## 5. Resource Contents"
    at = lines.index(heading) + 1 if heading in lines else len(lines)
    while at + 2 < len(lines):
        if lines[at] != "---" or not lines[at + 1].startswith("**Resource:** `"):
            at += 1
            continue
        name = lines[at + 1].removeprefix("**Resource:** `").removesuffix("`")
        count = lines[at + 2].removeprefix("**Tokens:** ")
        at += 3
        note = None
        if at < len(lines) and lines[at].startswith("**Note:** "):
            note, at = lines[at].removeprefix("**Note:** "), at + 1
        opening = lines[at] if at < len(lines) else ""
        fence = opening[: len(opening) - len(opening.lstrip("`~"))]
        if len(fence) < 3:
            continue  # no text recorded
        end = next((i for i in range(at + 1, len(lines)) if lines[i] == fence), len(lines))
        if is_url(name) and count.isdigit() and opening[len(fence) :] == "text":
            text = "\n".join(lines[at + 1 : end]) + "\n"
            found[name] = Resource(name, int(count), text, note)
        at = end + 1
    return found


def render_user_payload(
    memos: list[str],
    message: str,
    resources: list[Resource],
    encoding: str,
    overview: Resource | None = None,
) -> str:
    """Everything the model gets besides the system prompt, in spec 002's layout;
    `overview` (system information and the repository map) closes the summary."""
    memo_text = "".join(f"- {memo}\n" for memo in memos) or "(none)\n"
    total = sum(r.tokens for r in resources)
    summary = "".join(
        f"- {_resource_label(r.name)}: {r.tokens} tokens{' (' + r.note + ')' if r.note else ''}\n"
        for r in resources
    )
    return (
        f"## 2. Memos\n{_fenced(memo_text, 'yaml')}\n"
        f"## 3. User Message\n{_fenced(message)}\n"
        f"## 4. Context Summary\n"
        f"Token counts use the `{encoding}` encoding. Total: {total} tokens in "
        f"{len(resources)} resource(s).\n\n{summary or '(no resources)'}\n"
        f"{_overview(overview, bool(summary))}{render_resources(resources)}"
    )


def _overview(overview: Resource | None, after_list: bool) -> str:
    if overview is None or not overview.text:
        return ""
    gap = "" if after_list else "\n"  # a list ends with its newline, "(no resources)" not
    count = f"System information and repository map: {overview.tokens} tokens.\n"
    return f"{gap}{count}\n{overview.text}\n"


UNREDACTED_NOTE = (
    "> Sent unredacted (teddy.redactRequests is false): the model received the secrets that "
    "this log, as every commit, shows as [REDACTED:...].\n\n"
)


def render_context_log(system_prompt: str, user_payload: str, unredacted: bool = False) -> str:
    """`_context.log`: exactly what the model received, system prompt first (`unredacted`:
    but for the secrets that the commit redacts, which the log then says)."""
    note = UNREDACTED_NOTE if unredacted else ""
    system = _fenced(system_prompt, "xml")
    return f"# Context Log\n\n{note}## 1. System Prompt\n{system}\n{user_payload}"
