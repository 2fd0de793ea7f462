"""Unit tests of the plan API: sanitizer details, line numbers, errors, rendering."""

import pytest

from git_teddy.artifacts.plan import (
    ChatWithUser,
    Create,
    Plan,
    PlanError,
    Problem,
    check_plan,
    format_problems,
    parse_plan,
    plan_to_json,
    render_plan,
    sanitize,
)
from git_teddy.artifacts.plan.fences import sanitize_with_origin
from git_teddy.errors import TeddyError

RATIONALE = (
    "## Rationale\n````text\n### 1. Synthesis\na\n### 2. Justification\nb\n"
    "### 3. Expected Outcome\nc\n### 4. State Dashboard\nd\n````\n"
)


def plan_text(actions: str, title: str = "# T\n") -> str:
    return f"{title}{RATIONALE}\n## Action Plan\n{actions}"


def test_sanitize_lengthens_only_the_fences_that_need_it():
    text = "# T\n\n```\nplain\n```\n\n### `CREATE`\n```md\na ``` b\n```\n"
    assert sanitize(text) == "# T\n\n```\nplain\n```\n\n### `CREATE`\n````md\na ``` b\n````\n"


def test_sanitize_keeps_tilde_fences_and_ignores_backticks_inside_them():
    text = "# T\n### `CREATE`\n~~~\n```\n~~~~ x\n~~~\n"
    assert sanitize(text) == "# T\n### `CREATE`\n~~~~~\n```\n~~~~ x\n~~~~~\n"


def test_sanitize_normalizes_crlf_and_a_byte_order_mark():
    assert sanitize("\ufeff# T\r\nline\rnext\r\n") == "# T\nline\nnext\n"


def test_sanitize_drops_prose_before_the_title_and_maps_lines_back():
    text = "Here you go:\n\n# T\n" + RATIONALE
    result = sanitize_with_origin(text)
    assert result.text.startswith("# T\n")
    assert result.origin[:2] == [3, 4]


def test_sanitize_unwraps_a_plan_wrapped_in_a_markdown_fence():
    inner = plan_text("### `CHAT_WITH_USER`\nHi.\n")
    wrapped = f"Sure:\n```markdown\n{inner}```\nAnything else?\n"
    assert sanitize(wrapped) == inner


def test_a_marker_glued_to_the_metadata_list_still_counts():
    text = plan_text(
        "### `EDIT`\n- **File Path:** [a](/a)\n`FIND:`\n```\nx\n```\n`REPLACE:`\n```\ny\n```\n"
    )
    edit = plan_to_json(parse_plan(text))["actions"][0]
    assert edit["edits"] == [{"find": "x", "replace": "y"}]


def test_problem_lines_refer_to_the_text_as_given_not_the_sanitized_one():
    text = "Intro line\n\nmore intro\n\n" + plan_text("### `READ`\n- **Resource:** [../x](/../x)\n")
    _, problems = check_plan(text)
    assert len(problems) == 1
    line = problems[0].line
    assert text.split("\n")[line - 1] == "- **Resource:** [../x](/../x)"


def test_parse_plan_raises_a_teddy_error_listing_all_problems():
    text = "# T\n# U\n"
    with pytest.raises(PlanError) as caught:
        parse_plan(text)
    error = caught.value
    assert isinstance(error, TeddyError)
    assert [p.line for p in error.problems] == [1, 1, 2]
    assert "line 2: a second `#` title: `U`" in error.message
    assert error.message.startswith("the plan has 3 problems:")


def test_format_problems_gives_one_line_and_one_hint_per_problem():
    text = format_problems([Problem(3, "bad thing", "do this"), Problem(9, "other", "that")])
    assert text == "line 3: bad thing\n  hint: do this\nline 9: other\n  hint: that"


def test_action_lines_are_kept_for_later_stages_but_not_serialized():
    plan = parse_plan(plan_text("### `CHAT_WITH_USER`\nHi.\n"))
    assert plan.actions[0].line == 15
    assert "line" not in plan_to_json(plan)["actions"][0]


def test_render_uses_the_spec_layout():
    plan = Plan(
        title="T",
        metadata={"Agent": "Dev"},
        rationale="### 1. Synthesis\n```x```",
        actions=[
            Create(path="docs/a b.md", description="D", content="```\n"),
            ChatWithUser(message="Hi."),
        ],
    )
    text = render_plan(plan)
    assert text.startswith("# T\n- **Agent:** Dev\n\n## Rationale\n````text\n")
    assert "### `CREATE`\n- **File Path:** [docs/a b.md](</docs/a b.md>)\n" in text
    assert "- **Description:** D\n````markdown\n```\n````\n" in text
    assert text.endswith("### `CHAT_WITH_USER`\nHi.\n")


def test_unsafe_and_unusual_targets():
    text = plan_text(
        "### `READ`\n- **Resource:** [x](https://example.com/a)\n\n"
        "### `READ`\n- **Resource:** `docs/plain.md`\n\n"
        "### `PRUNE`\n- **Resource:** [sub/.GIT/hooks](/sub/.GIT/hooks)\n"
    )
    _, problems = check_plan(text)
    assert [p.message for p in problems] == [
        "PRUNE at line 21: `sub/.GIT/hooks` points into `.git`"
    ]
    fixed = text.replace(".GIT/", "")
    actions = plan_to_json(parse_plan(fixed))["actions"]
    assert [(a["type"], a["resource"]) for a in actions] == [
        ("READ", "https://example.com/a"),
        ("READ", "docs/plain.md"),
        ("PRUNE", "sub/hooks"),
    ]
    assert [a.get("kind") for a in actions] == ["url", "file", None]


@pytest.mark.parametrize("path", ["_/_", "_a_.py", "docs/*draft*.md", "__init__.py"])
def test_a_path_commonmark_reads_as_emphasis_is_still_the_same_path(path: str) -> None:
    # found by test_plan_properties: `[_/_](/_/_)` was refused, its text read as `/`
    plan = Plan(title="T", rationale=RATIONALE, actions=[Create(path=path, content="x\n")])
    parsed = parse_plan(render_plan(plan))
    assert [action.path for action in parsed.actions if isinstance(action, Create)] == [path]


def test_a_link_whose_written_text_names_another_path_is_still_refused() -> None:
    text = plan_text("### `CREATE`\n- **File Path:** [_b_](/_a_)\n```text\nx\n```\n")
    plan, problems = check_plan(text)
    assert plan is None
    assert "name different paths" in format_problems(problems)
