"""Property tests: render/parse round trip, sanitizer idempotence, no crash on any text."""

import os

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from plan_strategies import block_text, plans

from git_teddy.artifacts.plan import check_plan, parse_plan, plan_to_json, render_plan, sanitize
from git_teddy.artifacts.plan.fences import fence_for

SETTINGS = settings(
    max_examples=int(os.environ.get("PLAN_EXAMPLES", "300")),  # raise it to search harder
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@SETTINGS
@given(plans)
def test_parsing_a_rendered_plan_gives_the_same_plan(plan):
    text = render_plan(plan)
    assert plan_to_json(parse_plan(text)) == plan_to_json(plan), text


@SETTINGS
@given(plans)
def test_sanitizing_never_changes_a_correctly_fenced_plan(plan):
    text = render_plan(plan)
    assert sanitize(text) == text


# Markdown-ish noise: fences of both kinds and lengths, headings, markers, list items.
_PIECES = st.sampled_from(
    [
        "```",
        "````",
        "```python",
        "~~~",
        "~~~~ md",
        "`FIND:`",
        "`REPLACE:`",
        "### `CREATE`",
        "### `CHAT_WITH_USER`",
        "### `RESEARCH`",
        "## Rationale",
        "## Action Plan",
        "# Title",
        "- **File Path:** [a](/a)",
        "",
        "text with ``` inside",
    ]
)
markdownish = st.lists(_PIECES | st.text(max_size=12), max_size=40).map("\n".join)


@SETTINGS
@given(markdownish)
# A closing fence guessed for a block (nothing vouches for it) swallowed a `FIND:` that only a
# nested opener shielded; lengthened, the opener no longer nests and the next run split there.
@example("### `CREATE`\n```\n```python\n`FIND:`\n```\n- **File Path:** [a](/a)")
# A closing fence added for a block left open became, on the next run, the end of the block
# before it.
@example("```\n```\n## Rationale\n````\n````\n````\n```\n`FIND:`")
@example("```\n```\n```\n```\n```\n```\n```\n```\n### `CREATE`\n```\n```\n```\n~~~\n`FIND:`")
def test_sanitizing_is_idempotent(text):
    once = sanitize(text)
    assert sanitize(once) == once


@SETTINGS
@given(st.text() | markdownish)
def test_any_text_gives_a_plan_or_problems_with_lines_and_hints(text):
    plan, problems = check_plan(text)
    assert (plan is None) == bool(problems)
    for problem in problems:
        assert problem.line >= 1 and problem.message and problem.hint


@st.composite
def nested_markdown(draw, depth: int) -> str:
    """Markdown with code blocks nested `depth` deep, every fence three backticks long."""
    if depth == 0:
        return draw(block_text.filter(lambda text: "`" not in text))
    before = draw(st.sampled_from(["", "Intro.\n", "# Heading\n"]))
    inner = draw(nested_markdown(depth - 1))
    after = draw(st.sampled_from(["", "Outro.\n"]))
    language = draw(st.sampled_from(["python", "markdown", "text"]))
    return f"{before}```{language}\n{inner}```\n{after}"


@SETTINGS
@given(st.integers(1, 6).flatmap(nested_markdown), st.sampled_from(["CREATE", "EDIT"]))
def test_blocks_nested_with_equal_fences_keep_their_content(content, action):
    header = "# T\n## Rationale\n```\n### 1. Synthesis\n### 2. Justification\n"
    header += "### 3. Expected Outcome\n### 4. State Dashboard\n```\n## Action Plan\n"
    if action == "CREATE":
        body = f"### `CREATE`\n- **File Path:** [a.md](/a.md)\n```markdown\n{content}```\n"
    else:
        body = f"### `EDIT`\n- **File Path:** [a.md](/a.md)\n`FIND:`\n```\n{content}```\n"
        body += f"`REPLACE:`\n```\n{content}```\n"
    plan = parse_plan(header + body + "\n### `CHAT_WITH_USER`\nDone.\n")
    assert len(plan.actions) == 2
    created = plan_to_json(plan)["actions"][0]
    if action == "CREATE":
        assert created["content"] == content
    else:
        assert created["edits"] == [{"find": content[:-1], "replace": content[:-1]}]


@given(block_text)
def test_a_fence_is_longer_than_any_backtick_run_inside(text):
    fence = fence_for(text)
    assert len(fence) >= 3 and "`" * len(fence) not in text
