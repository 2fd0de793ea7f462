"""Agents: the bundled prompts teach the plan format with examples that really validate, and
`agent_prompt` picks a project's `.teddy/prompts/<agent>.xml` over the bundled prompt."""

import re
import xml.etree.ElementTree as ET
from importlib.resources import files
from pathlib import Path

import pytest

from git_teddy.artifacts.plan import (
    ACTION_TYPES,
    Conclude,
    Create,
    EditFile,
    Invoke,
    Plan,
    parse_plan,
    sanitize,
)
from git_teddy.artifacts.plan.validate import RATIONALE_PARTS
from git_teddy.errors import TeddyError
from git_teddy.planning.agents import (
    BUNDLED_AGENTS,
    SHARED_RULES,
    agent_prompt,
    bundled_prompt,
    bundled_prompt_path,
    normalize_agent,
    project_prompt_path,
)
from git_teddy.planning.tokens import TokenCounter
from git_teddy.prompts import PROMPTS_DIR

SKELETON = """# Show one action
- **Status:** Green 🟢
- **Plan Type:** Implementation
- **Agent:** Dev

## Rationale
````text
### 1. Synthesis
s

### 2. Justification
j

### 3. Expected Outcome
e

### 4. State Dashboard
d
````

## Action Plan

{actions}
"""


def root_of(agent: str) -> ET.Element:
    return ET.fromstring(bundled_prompt(agent))


def block(element: ET.Element | None) -> str:
    """The text of an element holding one CDATA block, as the model reads it."""
    assert element is not None and element.text is not None
    return element.text.strip("\n") + "\n"


def example_plans(agent: str) -> list[tuple[str, str]]:
    return [(str(e.get("name")), block(e)) for e in root_of(agent).iter("example_plan")]


ALL_EXAMPLES = [
    pytest.param(agent, text, id=f"{agent}: {name}")
    for agent in BUNDLED_AGENTS
    for name, text in example_plans(agent)
]
ALL_FORMATS = [
    pytest.param(agent, name, block(action.find("action_format")), id=f"{agent}: {name}")
    for agent in BUNDLED_AGENTS
    for action in root_of(agent).iter("action")
    for name in [str(action.get("name"))]
]


def no_project_files(path: str) -> bytes | None:
    return None


# ---- the bundled prompts ---------------------------------------------------------------------


def test_bundled_agents_are_the_four_of_the_design() -> None:
    assert BUNDLED_AGENTS == ("pathfinder", "architect", "dev", "debugger")
    agents = [path.stem for path in PROMPTS_DIR.glob("*.xml") if path.name != SHARED_RULES]
    assert sorted(agents) == sorted(BUNDLED_AGENTS)


@pytest.mark.parametrize("agent", BUNDLED_AGENTS)
def test_prompt_is_well_formed_xml_for_its_agent(agent: str) -> None:
    root = root_of(agent)
    assert root.tag == "agent_prompt"
    assert root.get("agent") == agent
    for part in ("role", "method", "session", "plan_format", "examples", "output_rules"):
        assert root.find(part) is not None, part
    assert {a.text for a in root.iter("agent")} <= set(BUNDLED_AGENTS) - {agent}


@pytest.mark.parametrize("agent", BUNDLED_AGENTS)
def test_prompt_mentions_every_action_and_rationale_part(agent: str) -> None:
    text = bundled_prompt(agent)
    for action in ACTION_TYPES:
        assert f"### `{action}`" in text, action
    for number, part in enumerate(RATIONALE_PARTS, start=1):
        assert f"### {number}. {part}" in text, part
    assert [a.get("name") for a in root_of(agent).iter("action")] == list(ACTION_TYPES)


@pytest.mark.parametrize("agent", BUNDLED_AGENTS)
def test_prompt_teaches_the_rules_models_get_wrong(agent: str) -> None:
    text = bundled_prompt(agent)
    for phrase in (
        "_context.log",
        "STRICTLY MORE backticks",
        "the first line of your reply",
        "do not wrap the plan in a code fence",
        "Exactly one plan per reply",
        "`- **Overwrite:** yes`",
        "MUST MATCH EXACTLY ONCE",
        "[src/app/config.py](/src/app/config.py)",
        "THE FIRST FAILING ACTION STOPS THE PLAN",
        "`[+] fact`",
        "`[-] fact`",
        "Everything after ` #` is a comment",
    ):
        assert phrase in text, phrase
    for method_word in {
        "pathfinder": ("Why", "What", "How", "Handoff"),
        "architect": ("Design", "Spec", "Slices"),
        "dev": ("Red", "Green", "Refactor"),
        "debugger": ("Reproduce", "Isolate", "Root cause", "CONCLUDE"),
    }[agent]:
        assert method_word in block(root_of(agent).find("method")), method_word


def test_shared_sections_are_the_same_in_every_bundled_prompt() -> None:
    """The format is taught once, word for word, so no prompt drifts from the others."""
    for part in ("session", "plan_format", "output_rules"):
        sections = [root_of(agent).find(part) for agent in BUNDLED_AGENTS]
        assert all(section is not None for section in sections), part
        assert len({ET.tostring(s) for s in sections if s is not None}) == 1, part


# Issue 27: the system prompt is part of every request, and the format's rules were repeated.
# Sizes in cl100k tokens, before -> after (with the READ-parts sentence): pathfinder
# 5686 -> 3827, architect 5684 -> 3938, dev 5544 -> 3886, debugger 5620 -> 3896.
PROMPT_BUDGET = 4000


def test_every_bundled_prompt_fits_the_budget_and_shares_the_rules_file() -> None:
    counter = TokenCounter("cl100k_base")
    sizes = {agent: counter.count(bundled_prompt(agent)) for agent in BUNDLED_AGENTS}
    assert max(sizes.values()) <= PROMPT_BUDGET, sizes
    shared = (PROMPTS_DIR / SHARED_RULES).read_text(encoding="utf-8")
    for agent in BUNDLED_AGENTS:
        own = bundled_prompt_path(agent).read_text(encoding="utf-8")
        assert "<shared_rules/>" in own and "STRICTLY MORE backticks" not in own
        assert "STRICTLY MORE backticks" in shared
        assert "<!--" not in bundled_prompt(agent).split("<examples>")[0]  # no file comments


@pytest.mark.parametrize("agent", BUNDLED_AGENTS)
def test_prompt_speaks_of_the_users_project_not_of_the_tool(agent: str) -> None:
    text = bundled_prompt(agent)
    assert "git-teddy" not in text
    assert "in the user's project" in block(root_of(agent).find("role"))
    assert "named in System Information" in block(root_of(agent).find("session"))


def test_prompts_ship_with_the_package() -> None:
    for agent in BUNDLED_AGENTS:
        assert files("git_teddy.prompts").joinpath(f"{agent}.xml").is_file()
        assert bundled_prompt_path(agent) == PROMPTS_DIR / f"{agent}.xml"
    assert files("git_teddy.prompts").joinpath(SHARED_RULES).is_file()


# ---- the example plans in them ---------------------------------------------------------------


@pytest.mark.parametrize("agent", BUNDLED_AGENTS)
def test_every_prompt_has_complete_examples(agent: str) -> None:
    assert len(example_plans(agent)) >= 2


@pytest.mark.parametrize(("agent", "text"), ALL_EXAMPLES)
def test_example_plan_validates_as_written(agent: str, text: str) -> None:
    plan = parse_plan(text)
    assert text.startswith("# ")
    assert sanitize(text) == text  # fenced right already: nothing for the sanitizer to repair
    assert normalize_agent(plan.metadata["Agent"]) == agent
    assert set(plan.metadata) == {"Status", "Plan Type", "Agent"}
    assert plan.actions
    last_only = ("CHAT_WITH_USER", "INVOKE", "CONCLUDE")
    assert all(action.type not in last_only for action in plan.actions[:-1])


def test_examples_cover_every_action_nested_fences_and_multi_pair_edits() -> None:
    plans: list[Plan] = [parse_plan(text) for a in BUNDLED_AGENTS for _, text in example_plans(a)]
    actions = [action for plan in plans for action in plan.actions]
    assert {action.type for action in actions} == set(ACTION_TYPES)
    nested = [
        a
        for a in actions
        if isinstance(a, Create) and a.path.endswith(".md") and "```" in a.content
    ]
    assert nested, "a CREATE of Markdown holding a ``` block"
    assert any(isinstance(a, EditFile) and len(a.edits) >= 2 for a in actions)
    assert any(plan.memos for plan in plans)
    handoffs = [a for a in actions if isinstance(a, Invoke | Conclude)]
    assert handoffs and all(a.handoff_resources for a in handoffs)


@pytest.mark.parametrize(("agent", "name", "fragment"), ALL_FORMATS)
def test_action_format_shown_for_each_action_parses_as_that_action(
    agent: str, name: str, fragment: str
) -> None:
    text = SKELETON.format(actions=fragment)
    plan = parse_plan(text)
    assert sanitize(text) == text
    assert plan.actions and all(action.type == name for action in plan.actions)


def test_the_nested_fencing_example_is_a_valid_markdown_create() -> None:
    rules = block(root_of("dev").find("plan_format/rules"))
    match = re.search(r"`````markdown\n(### `CREATE`\n.*?)\n`````\n", rules, re.S)
    assert match is not None
    fragment = match.group(1)
    assert "\n````markdown\n" in fragment
    plan = parse_plan(SKELETON.format(actions=fragment))
    (create,) = plan.actions
    assert isinstance(create, Create) and create.path == "docs/usage.md"
    assert "```shell\nmake run\n```" in create.content


def test_the_rules_name_the_plan_structure_in_order() -> None:
    rules = block(root_of("dev").find("plan_format/rules"))
    parts = ["`# ", "**Status:**", "**Plan Type:**", "**Agent:**", "`## Rationale`"]
    parts += [f"`### {n}. {part}`" for n, part in enumerate(RATIONALE_PARTS, start=1)]
    parts += ["`## Memos`", "`## Action Plan`"]
    positions = [rules.index(part) for part in parts]
    assert positions == sorted(positions)


# ---- choosing a prompt -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("Architect ", "architect"),
        ("dev", "dev"),
        ("  DEBUGGER\n", "debugger"),
        ("**Pathfinder**", "pathfinder"),
        ("`Dev`", "dev"),
        ("Code Reviewer", "code-reviewer"),
        ("release_manager", "release_manager"),
    ],
)
def test_normalize_agent(given: str, expected: str) -> None:
    assert normalize_agent(given) == expected
    assert normalize_agent(expected) == expected


@pytest.mark.parametrize("agent", BUNDLED_AGENTS)
def test_bundled_prompt_without_project_override(agent: str) -> None:
    asked: list[str] = []

    def project_file(path: str) -> bytes | None:
        asked.append(path)
        return None

    text = agent_prompt(agent.title(), project_file)
    assert text == bundled_prompt(agent)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<agent_prompt ')
    assert "<shared_rules/>" not in text and "<plan_format>" in text
    assert asked == [f".teddy/prompts/{agent}.xml"]


def test_project_prompt_overrides_the_bundled_one() -> None:
    files_ = {".teddy/prompts/dev.xml": "<agent_prompt>Our own dev ✓</agent_prompt>\n".encode()}
    assert agent_prompt(" Dev", files_.get) == "<agent_prompt>Our own dev ✓</agent_prompt>\n"
    assert agent_prompt("architect", files_.get) == agent_prompt("architect", no_project_files)


def test_project_may_define_a_new_agent() -> None:
    files_ = {".teddy/prompts/finisher.xml": b"\xef\xbb\xbf<prompt>Finish.</prompt>"}
    assert agent_prompt("Finisher", files_.get) == "<prompt>Finish.</prompt>"
    assert project_prompt_path("Finisher") == ".teddy/prompts/finisher.xml"


def test_unknown_agent_names_the_available_ones_and_the_override_path() -> None:
    with pytest.raises(TeddyError) as raised:
        agent_prompt("Finisher", no_project_files)
    message = raised.value.message
    assert "unknown agent `finisher`" in message
    assert all(agent in message for agent in BUNDLED_AGENTS)
    assert raised.value.hint is not None and ".teddy/prompts/finisher.xml" in raised.value.hint


@pytest.mark.parametrize("name", ["", "   ", "../dev", "a/b", ".teddy", "dev.xml", "x\0y"])
def test_invalid_agent_names_never_reach_the_project(name: str) -> None:
    def project_file(path: str) -> bytes | None:
        raise AssertionError(f"read {path}")

    with pytest.raises(TeddyError, match="not a valid agent name"):
        agent_prompt(name, project_file)


@pytest.mark.parametrize(
    ("data", "error"),
    [(b"\xff\xfe<prompt/>", "is not UTF-8"), (b"", "is empty"), (b" \n\t\n", "is empty")],
)
def test_unusable_project_prompt_is_a_clear_error(data: bytes, error: str) -> None:
    with pytest.raises(TeddyError, match=error) as raised:
        agent_prompt("dev", {".teddy/prompts/dev.xml": data}.get)
    assert ".teddy/prompts/dev.xml" in raised.value.message


def test_prompts_dir_is_the_installed_package_folder() -> None:
    assert Path(str(files("git_teddy.prompts"))) == PROMPTS_DIR
