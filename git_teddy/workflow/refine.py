"""Asking a model to refine an extracted workflow (pure): the system prompt that teaches
it the markup, the request, and what a reply must be (its check and the retry message for
an invalid one). The model is asked, and re-prompted, by git_teddy.planning.ask.
"""

import re

from git_teddy.artifacts.plan.validate import Problem
from git_teddy.planning.ask import Wanted, retry_message
from git_teddy.workflow.markup import parse_workflow
from git_teddy.workflow.model import ARROW, NONE, Workflow

REFINE_SYSTEM = f"""You refine workflows that git-teddy extracted from AI pair-programming \
sessions. You get the session log (spec 003 session.md) and the extracted workflow. Reply \
with the improved workflow document only: no commentary, no code fence around it.

Improve it:
- clean up: clear imperative step titles, drop steps that did nothing useful, merge steps \
that are one piece of work, generalise session-specific details into reusable instructions;
- add a type annotation to every input and output (`name`: type), e.g. file, url, query, \
python-module, test-file, markdown, json;
- clarify conditional flows: `- when: <condition>` on a step that runs only sometimes, and \
`- on_failure: <exact title of another step>` on a step whose failure leads to a repair step;
- keep every gate where a human must approve, and keep `source_session`.

The workflow markup (docs/workflows.md), exactly:
- YAML frontmatter between `---` lines with the keys `type: workflow`, `name`, \
`source_session`, `agents` (a list of `name` or `name@version`), `channel`, `created`, and \
optionally `description`; no other keys.
- Optionally one `# Title` line and free text before the first step.
- One `## <step title> @<agent> #<channel>` heading per step; titles are unique and the \
agent is listed in `agents`.
- Under a step, free text (never starting with `- ` or `#`) describes it; its list items \
are fields, one per line:
  - `- flow: <inputs> {ARROW} <outputs>`: exactly one per step; each side is `{NONE}` or a \
comma-separated list of code spans, each optionally followed by `: type`;
  - `- check: `command``: a command that verifies the step (any number);
  - `- gate: <text>`: where a human must approve, and what (any number);
  - `- when: <condition>`: at most one;
  - `- on_failure: <title of another step>`: at most one;
  - `- invoke: @agent` or `- invoke: @agent [[session-id]]`: a subagent the step hands off to.
"""


def refine_payload(session_log: str, extract: str) -> str:
    return (
        "## The session log\n\n"
        f"{session_log.rstrip()}\n\n"
        "## The extracted workflow\n\n"
        f"{extract.rstrip()}\n"
    )


def refined(session: str) -> Wanted[Workflow]:
    """A reply that is a valid workflow, codified from `session`."""
    return Wanted(
        "the refined workflow",
        lambda text: check_refined(text, session),
        lambda problems: retry_message(problems, "workflow", "workflow document"),
    )


def check_refined(text: str, session: str) -> tuple[Workflow | None, list[Problem]]:
    """A model's reply as a workflow: a fence around the whole reply is forgiven, the
    source session must stay the one the workflow was codified from."""
    workflow, problems = parse_workflow(unwrap_fence(text))
    if workflow is not None and workflow.meta.source_session != session:
        hint = f"keep `source_session: {session}` in the frontmatter"
        return None, [Problem(1, f"source_session is not {session}", hint)]
    return workflow, problems


def unwrap_fence(text: str) -> str:
    """The document inside a code fence that wraps the whole reply (models add them)."""
    match = re.fullmatch(r"\s*(`{3,}|~{3,})[\w-]*\n(?P<body>.*?)\n\1\s*", text, re.DOTALL)
    return match["body"] + "\n" if match else text
