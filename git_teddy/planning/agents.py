"""Agents: the system prompt a turn is planned with, by agent name.

The bundled prompts are `<agent>.xml` in git_teddy.prompts. A project's
`.teddy/prompts/<agent>.xml` overrides the bundled prompt of that name, or defines a new
agent. Pure apart from reading the bundled files: project files come from the caller, who
reads them from the session's snapshot.
"""

import re
from collections.abc import Callable
from pathlib import Path

from git_teddy.artifacts.plan import Plan, Problem
from git_teddy.errors import TeddyError
from git_teddy.prompts import PROMPTS_DIR

BUNDLED_AGENTS: tuple[str, ...] = ("pathfinder", "architect", "dev", "debugger")
PROJECT_PROMPTS = ".teddy/prompts"
SHARED_RULES = "_shared.xml"  # the plan format and the session, the same for every agent

_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_WRAPPING = "`*\"' \t\r\n"
_AGENT_LINE = re.compile(r"^\s{0,3}[-*+]\s+(?:\*\*|__)?\s*agent\s*(?::|\*\*|__)", re.IGNORECASE)


def normalize_agent(name: str) -> str:
    """`Architect `, `**Dev**`, `Code Reviewer` -> `architect`, `dev`, `code-reviewer`."""
    return re.sub(r"\s+", "-", name.strip(_WRAPPING).strip().lower())


def project_prompt_path(agent: str) -> str:
    """Where a project puts the prompt of `agent`: `.teddy/prompts/<agent>.xml`."""
    return f"{PROJECT_PROMPTS}/{normalize_agent(agent)}.xml"


def agent_prompt(agent: str, project_file: Callable[[str], bytes | None]) -> str:
    """The system prompt of `agent`: the project's `.teddy/prompts/<agent>.xml`, else the
    bundled one. `project_file(path)` returns a project file's bytes, or None if absent."""
    name = normalize_agent(agent)
    if not _NAME.fullmatch(name) or name.endswith(".xml") or ".." in name:
        raise TeddyError(
            f"`{agent}` is not a valid agent name",
            f"agent names are letters, digits, `-` and `_`, e.g. {_available()}",
        )
    path = project_prompt_path(name)
    data = project_file(path)
    if data is not None:
        return _decode(data, path)
    if name in BUNDLED_AGENTS:
        return bundled_prompt(name)
    raise TeddyError(
        f"unknown agent `{name}`: the bundled agents are {_available()}",
        f"use one of them, or define `{name}` for this project in {path}",
    )


def bundled_prompt(agent: str) -> str:
    """A bundled agent's prompt as the model gets it: its file, `<shared_rules/>` replaced by
    the rules every agent shares (`_shared.xml`), the files' own comments left out."""
    text = _without_comment(bundled_prompt_path(agent).read_text(encoding="utf-8"))
    shared = _without_comment((PROMPTS_DIR / SHARED_RULES).read_text(encoding="utf-8"))
    return text.replace("<shared_rules/>\n", shared)


def _without_comment(text: str) -> str:
    """The text without the maintainers' comment that opens a prompt file."""
    return re.sub(r"^(<\?xml[^>]*>\n)?<!--.*?-->\n", r"\1", text, count=1, flags=re.S)


def bundled_prompt_path(agent: str) -> Path:
    """The bundled prompt file of `agent` (which may not exist)."""
    directory: Path = PROMPTS_DIR  # git_teddy.prompts is mapped from prompts/ at install
    return directory / f"{normalize_agent(agent)}.xml"


def _available() -> str:
    return ", ".join(BUNDLED_AGENTS)


def _decode(data: bytes, path: str) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise TeddyError(
            f"{path} is not UTF-8 text ({error.reason} at byte {error.start})",
            "save the prompt as UTF-8",
        ) from None
    if not text.strip():
        raise TeddyError(
            f"{path} is empty", "write the agent's system prompt in it, or remove the file"
        )
    return text


def header_problems(plan: Plan, text: str, agent: str, chosen_by: str) -> list[Problem]:
    """The plan's `**Agent:**` header must name the agent the turn is planned and recorded
    as (`agent`, chosen by `chosen_by`): a model writing another name believes it is
    someone else, and the turn would be shown under a name its plan contradicts. Sent
    back to the model like any plan problem. A plan without the header names nobody."""
    written = next((v for k, v in plan.metadata.items() if k.strip().lower() == "agent"), None)
    if written is None or not written.strip():
        return []
    name = normalize_agent(written).split("@")[0]  # `Dev@1.0` is dev
    if name == normalize_agent(agent):
        return []
    title = agent.capitalize()
    return [
        Problem(
            _agent_line(text),
            f"the header says `**Agent:** {written.strip()}`, but this turn is planned by "
            f"{title} ({chosen_by})",
            f"write `- **Agent:** {title}` and plan as {title}; to hand the work to "
            f"{written.strip()}, end the plan with an INVOKE naming it (a plan given with "
            f"--from-file: plan again with `-a {name}`)",
        )
    ]


def _agent_line(text: str) -> int:
    """The line of the header's `- **Agent:**` item (the first, before any `##`)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("##"):
            break
        if _AGENT_LINE.match(line):
            return number
    return 1
