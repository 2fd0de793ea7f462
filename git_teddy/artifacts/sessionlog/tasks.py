"""The task list a plan's State Dashboard gives, for the phase's `tasks` block (pure).

Dashboards are free text; two shapes are read: checklists (`- [x] Write the test`) and
labelled items (`- **Phase B: Solution Space:** In Progress`). Items whose state is not
recognisable are left out; no recognisable item means no tasks block.
"""

import re

from git_teddy.artifacts.sessionlog.model import Task, Tasks, TaskStatus

_SECTION = re.compile(
    r"^#+\s*(?:\d+\.\s*)?State Dashboard\s*\n(?P<text>.*?)(?=^#+\s|\Z)", re.MULTILINE | re.DOTALL
)
_CHECKBOX = re.compile(r"^\s*[-*] \[(?P<mark>[ xX~>-])\]\s+(?P<content>.+)$")
_BOLD_LABEL = re.compile(r"^\s*[-*] \*\*(?P<content>.+?):?\*\*:?\s+(?P<state>.+)$")
_PLAIN_LABEL = re.compile(r"^\s*[-*] (?P<content>[^*].*):\s+(?P<state>[^:]+)$")
_STATES: list[tuple[TaskStatus, tuple[str, ...]]] = [
    ("in_progress", ("in progress", "in-progress", "wip", "ongoing", "started", "active", "red")),
    ("completed", ("done", "complete", "completed", "approved", "finished", "green", "✅")),
    ("pending", ("not started", "pending", "todo", "to do", "blocked", "next", "waiting")),
]
_MARKS: dict[str, TaskStatus] = {" ": "pending", "x": "completed", "X": "completed"}


def dashboard_tasks(rationale: str) -> Tasks | None:
    match = _SECTION.search(rationale)
    if match is None:
        return None
    tasks: list[Task] = []
    for line in match["text"].splitlines():
        found = _task(line)
        if found:
            content, status = found
            tasks.append(Task(id=str(len(tasks) + 1), content=content, status=status))
    return Tasks(tasks=tasks) if tasks else None


def _task(line: str) -> tuple[str, TaskStatus] | None:
    box = _CHECKBOX.match(line)
    if box:
        return box["content"].strip(), _MARKS.get(box["mark"], "in_progress")
    labelled = _BOLD_LABEL.match(line) or _PLAIN_LABEL.match(line)
    if labelled:
        status = state_of(labelled["state"])
        return (labelled["content"].strip(), status) if status else None
    return None


def state_of(text: str) -> TaskStatus | None:
    words = text.strip(" .*_`").lower()
    for status, names in _STATES:
        if any(words == name or words.startswith(name + " ") for name in names):
            return status
    return None
