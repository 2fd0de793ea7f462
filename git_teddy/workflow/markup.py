"""A workflow document read and validated (pure): the frontmatter, the title and text
before the steps, the step headings (their fields are read in fields.py), and what only the
whole list of steps tells. Every problem is reported with its line, so that a person or a
model can fix them all in one go.
"""

import datetime as dt
import re
from typing import Any

import yaml

from git_teddy.artifacts.plan.validate import Problem
from git_teddy.workflow.fields import FIELD_HINT, StepDraft, check_step, join_lines
from git_teddy.workflow.model import FIELDS, Workflow, WorkflowMeta

REQUIRED_KEYS = ("type", "name", "agents", "channel")
OPTIONAL_KEYS = ("source_session", "created", "description")
STEP_HINT = "write each step as `## <step> @agent #channel` followed by `- flow: in → out`"
FRONTMATTER_HINT = (
    "start with `---`, then `type: workflow`, `name`, `agents` (a list), `channel`, "
    "optionally `source_session`, `created` and `description`, then `---`"
)

_STEP = re.compile(r"## (?P<title>.*\S) @(?P<agent>\S+) #(?P<channel>\S+)")
_AGENT = re.compile(r"[A-Za-z0-9][\w.-]*(?:@[\w.+-]+)?")
_FIELD = re.compile(r"- (?P<key>[a-z_]+):(?: (?P<value>.*))?")


def parse_workflow(text: str) -> tuple[Workflow | None, list[Problem]]:
    """The workflow in `text` and every problem found (in line order); the workflow is None
    whenever there is a problem, so a caller never uses half a workflow."""
    meta, body, offset, problems = _parse_frontmatter(text)
    title, description, drafts, body_problems = _parse_body(body.split("\n"), offset)
    problems += body_problems
    steps = [check_step(draft, problems) for draft in drafts]
    problems += _check_steps(drafts, meta)
    if not drafts:
        problems.append(Problem(offset, "the workflow has no steps", STEP_HINT))
    problems.sort(key=lambda problem: problem.line)
    if problems or meta is None:
        return None, problems
    return Workflow(meta=meta, title=title, description=description, steps=steps), []


# ---- the frontmatter -------------------------------------------------------------------------


def _parse_frontmatter(text: str) -> tuple[WorkflowMeta | None, str, int, list[Problem]]:
    """(meta, body, line number of the body's first line, problems)."""
    if not text.startswith("---\n") or "\n---\n" not in text[3:]:
        return None, text, 1, [Problem(1, "no frontmatter between `---` lines", FRONTMATTER_HINT)]
    end = text.index("\n---\n", 3)
    header, body = text[4 : end + 1], text[end + 5 :]
    offset = text[: end + 5].count("\n") + 1
    try:
        data = yaml.safe_load(header)
    except yaml.YAMLError as error:
        return None, body, offset, [Problem(1, f"frontmatter: {error}", FRONTMATTER_HINT)]
    if not isinstance(data, dict):
        problem = Problem(1, "the frontmatter is not a mapping of keys", FRONTMATTER_HINT)
        return None, body, offset, [problem]
    meta, problems = _check_meta(data, header.split("\n"))
    return meta, body, offset, problems


def _check_meta(
    data: dict[Any, Any], lines: list[str]
) -> tuple[WorkflowMeta | None, list[Problem]]:
    def line(key: object) -> int:  # where the key is written (its document line), else 1
        found = [n for n, text in enumerate(lines, start=2) if text.startswith(f"{key}:")]
        return found[0] if found else 1

    problems = [
        Problem(line(key), f"unknown frontmatter key `{key}`", FRONTMATTER_HINT)
        for key in data
        if key not in REQUIRED_KEYS + OPTIONAL_KEYS
    ]
    problems += [
        Problem(1, f"the frontmatter has no `{key}`", FRONTMATTER_HINT)
        for key in REQUIRED_KEYS
        if key not in data
    ]
    if data.get("type", "workflow") != "workflow":
        message = f"type is {data['type']!r}, not workflow"
        problems.append(Problem(line("type"), message, FRONTMATTER_HINT))
    fields = {key: _scalar(data[key]) for key in ("name", "channel", *OPTIONAL_KEYS) if key in data}
    for key, value in fields.items():
        if value is None or (key in ("name", "channel") and not value.strip()):
            message = f"`{key}` must be a non-empty text"
            problems.append(Problem(line(key), message, FRONTMATTER_HINT))
    agents = data.get("agents", [])
    if not isinstance(agents, list) or not all(
        isinstance(a, str) and _AGENT.fullmatch(a) for a in agents
    ):
        hint = "e.g. `agents: [pathfinder@1.0, dev]`: names, each with an optional @version"
        problems.append(Problem(line("agents"), "`agents` must be a list of agent names", hint))
    if problems:
        return None, problems
    return WorkflowMeta.model_validate({**fields, "agents": agents}), []


def _scalar(value: object) -> str | None:
    """YAML reads an unquoted `created: 2026-11-26T12:00:00Z` as a datetime: keep it as text."""
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value)
    return None


# ---- the body --------------------------------------------------------------------------------


def _parse_body(
    lines: list[str], offset: int
) -> tuple[str | None, str, list[StepDraft], list[Problem]]:
    title: str | None = None
    preamble: list[str] = []
    drafts: list[StepDraft] = []
    problems: list[Problem] = []
    for number, line in enumerate(lines, start=offset):
        draft = drafts[-1] if drafts else None
        if line.startswith("## ") or line == "##":
            heading = _STEP.fullmatch(line.rstrip())
            if heading is None:
                problems.append(
                    Problem(number, "step heading without @agent and #channel", STEP_HINT)
                )
                continue
            drafts.append(
                StepDraft(number, heading["title"], heading["agent"], heading["channel"], [], [])
            )
        elif (
            line.startswith("# ")
            and title is None
            and draft is None
            and not "".join(preamble).strip()
        ):
            title = line[2:].strip()
        elif line.startswith("#"):
            hint = "only one `# ` title before the steps and `## ` step headings are allowed"
            problems.append(Problem(number, f"unexpected heading {line!r}", hint))
        elif line.startswith("- ") or line == "-":
            if draft is None:
                hint = "fields belong to a step: put them under its `## ` heading"
                problems.append(Problem(number, "a list item before the first step", hint))
                continue
            field = _FIELD.fullmatch(line.rstrip())
            if field is None or field["key"] not in FIELDS:
                problems.append(Problem(number, f"not a step field: {line!r}", FIELD_HINT))
                continue
            draft.fields.append((number, field["key"], (field["value"] or "").strip()))
        elif draft is None:
            preamble.append(line)
        else:
            draft.description.append(line)
    return title, join_lines(preamble), drafts, problems


def _check_steps(drafts: list[StepDraft], meta: WorkflowMeta | None) -> list[Problem]:
    """What only the whole list of steps tells: unique titles, known agents, references."""
    problems: list[Problem] = []
    titles: set[str] = set()
    for draft in drafts:
        if draft.title in titles:
            hint = "step titles name steps (on_failure refers to them): make each unique"
            problems.append(Problem(draft.line, f"a second step titled {draft.title!r}", hint))
        titles.add(draft.title)
        if meta is not None and draft.agent not in meta.agents:
            hint = "list every step's agent in the frontmatter's `agents`"
            problems.append(Problem(draft.line, f"@{draft.agent} is not in `agents`", hint))
    for draft in drafts:
        for number, key, value in draft.fields:
            if key == "on_failure" and value and (value not in titles or value == draft.title):
                hint = "name another step by its exact title"
                problems.append(Problem(number, f"on_failure: no other step {value!r}", hint))
    return problems
