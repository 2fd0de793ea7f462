"""The entries of a context list (pure): history references, exclusions, and how PRUNE,
READ, `git teddy add` and `git teddy drop` change a session's `session.context`.

A line `!PATH` in `session.context` excludes PATH (or what the glob matches) from every
level of the cascade for the rest of the session: a PRUNE of an entry that
`.teddy/global.context` or `session.context` gives writes it (spec 000: lower levels
override upper ones), a READ or `git teddy add` of the entry removes it. A turn's own
history is named `session:<turn>/<file>` (plan.md, report.md, user_prompt.txt of the turn
folder on the session branch): spec 002 4.1 lists the previous turn's in the next
`turn.context`, where the model keeps or PRUNEs them like any entry.
"""

import fnmatch
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the report's models (pydantic, yaml) are after_report's caller's
    from git_teddy.artifacts.report import ExecutionReport

GLOBAL_CONTEXT = ".teddy/global.context"  # in the project, committed by the team
SESSION_PREFIX = "session:"
SESSION_REF = re.compile(r"^session:([A-Za-z0-9][A-Za-z0-9.\-]*)/([A-Za-z0-9_.\-]+)$")
EXCLUDE = "!"
COMMENT = re.compile(r"(?:^|\s)#")


def entry_of(line: str) -> str:
    """The entry a line of a context file names ("" for none): `#` at the start of a line
    or after a space starts a comment."""
    match = COMMENT.search(line)
    return (line[: match.start()] if match else line).strip()


def rewrite(text: str, after: list[str]) -> str:
    """`text` (a context file) naming the entries `after`, its other lines (comments, blank
    lines) kept: lines of entries no longer wanted go, new entries are appended."""
    lines = text.splitlines(keepends=True)
    kept = [line for line in lines if not entry_of(line) or entry_of(line) in after]
    present = {entry_of(line) for line in kept}
    if kept and not kept[-1].endswith("\n"):
        kept[-1] += "\n"
    return "".join(kept) + "".join(f"{e}\n" for e in after if e not in present)


def history_ref(turn: str, name: str) -> str:
    return f"{SESSION_PREFIX}{turn}/{name}"


def is_session_ref(entry: str) -> bool:
    """`session:<turn>/<file>`: a file of a turn folder on the session branch."""
    return SESSION_REF.match(entry) is not None


def split_session_ref(entry: str) -> tuple[str, str]:
    match = SESSION_REF.match(entry)
    if match is None:
        raise ValueError(entry)
    return match[1], match[2]


def exclusions(entries: list[str]) -> list[str]:
    """The excluded entries (the `!PATH` lines, without the `!`)."""
    return [e[1:].lstrip("/") for e in entries if e.startswith(EXCLUDE) and len(e) > 1]


def inclusions(entries: list[str]) -> list[str]:
    return [e for e in entries if not e.startswith(EXCLUDE)]


def matches(entry: str, patterns: list[str]) -> bool:
    """Whether `entry` is one of `patterns` or matched by one of their globs."""
    name = entry.lstrip("/")
    return any(name == p.lstrip("/") or fnmatch.fnmatchcase(name, p.lstrip("/")) for p in patterns)


def without_excluded(entries: list[str], excluded: list[str]) -> list[str]:
    return [e for e in entries if not matches(e, excluded)]


def add_entry(session: list[str], entry: str) -> list[str]:
    """`session.context` with `entry` in it and no exclusion of it left."""
    kept = [e for e in session if e.lstrip(EXCLUDE).lstrip("/") != entry.lstrip("/")]
    return [*kept, entry]


def drop_entry(session: list[str], entry: str, still_given: bool) -> list[str]:
    """`session.context` without `entry`; excluding it when another level (`still_given`:
    the global context, a glob of the session's, the turn's own list) would bring it back."""
    kept = [e for e in session if e.lstrip("/") != entry.lstrip("/")]
    exclusion = f"{EXCLUDE}{entry}"
    if still_given and exclusion not in kept:
        kept.append(exclusion)
    return kept


def after_report(
    session: list[str], global_entries: list[str], report: "ExecutionReport"
) -> list[str]:
    """`session.context` after a turn's successful PRUNEs and READs: a PRUNE of an entry the
    global or session level gives excludes it, a READ of an excluded entry brings it back
    (the turn's own list changes in the next `turn.context`, `next_turn_context`)."""
    entries = list(session)
    for log in report.action_logs:
        resource = log.params.get("resource")
        if log.status != "SUCCESS" or not isinstance(resource, str):
            continue
        if log.action_type == "READ":
            entries = [e for e in entries if e != f"{EXCLUDE}{resource.lstrip('/')}"]
        elif log.action_type == "PRUNE":
            upper = [*global_entries, *inclusions(entries)]
            if matches(resource, upper):
                without = [e for e in entries if e.lstrip("/") != resource.lstrip("/")]
                given = matches(resource, [*global_entries, *inclusions(without)])
                entries = drop_entry(without, resource, given)
    return entries
