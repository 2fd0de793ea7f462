"""`git teddy codify`: the workflow markup (render, parse, validation), the extract of a
session log, and the command on the story session (testing/session_story.py): stdout, -o,
--force, --interactive with a scripted $EDITOR, and --refine against a local
OpenAI-compatible server."""

import json
import string
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from git_teddy.artifacts.sessionlog.callouts import error_callout, user_callout
from git_teddy.artifacts.sessionlog.model import (
    Callout,
    SessionLog,
    SessionMeta,
    ToolCall,
    ToolCalls,
)
from git_teddy.workflow.extract import extract_workflow, unique_titles
from git_teddy.workflow.markup import parse_workflow
from git_teddy.workflow.model import Port, Step, Workflow, WorkflowMeta, render_workflow
from git_teddy.workflow.refine import REFINE_SYSTEM, check_refined, unwrap_fence
from testing.commands import Teddy
from testing.llm_servers import OpenAIServer, model_reply
from testing.log_builders import phase
from testing.sealed import FIXED_DATE
from testing.session_story import MEMO, MESSAGES, REJECTION_REASON, SESSION, Story

# ---- the story session, played once per module -----------------------------------------------

SUBAGENT = f"{SESSION}.05-architect"


def step(title: str, agent: str = "pathfinder@1.0", **fields: object) -> Step:
    return Step.model_validate({"title": title, "agent": agent, "channel": "cli", **fields})


def file(name: str) -> Port:
    return Port(name=name, type="file")


def story_workflow() -> Workflow:
    """What the story did, step by step (see testing/session_story.py)."""
    return Workflow(
        meta=WorkflowMeta(
            name="story",
            source_session=SESSION,
            agents=["pathfinder@1.0", "architect@1.0"],
            channel="cli",
            created=FIXED_DATE,
        ),
        title="Workflow story",
        description=f"Codified from session {SESSION}: one step per turn.",
        steps=[
            step(
                "Add a checker",
                description=f"> {MESSAGES['01']}",
                outputs=[file("check.py")],
                checks=["python check.py"],
                gates=[f"approve the memos: {MEMO}"],
                on_failure="Fix the checker",
            ),
            step(
                "Fix the checker",
                description=f"> {MESSAGES['02']}",
                outputs=[file("check.py")],
                checks=["python check.py"],
                gates=[
                    "approve `CREATE extra.txt`; the user rejected it in the session: "
                    f'"{REJECTION_REASON}"'
                ],
                when='`EXECUTE python check.py` failed in step "Add a checker"',
            ),
            step(
                "Ask about the release",
                description=f"> {MESSAGES['03']}",
                gates=["the user answers: Should I prepare a release?"],
            ),
            step(
                "Hand the design to the architect",
                description=f"> {MESSAGES['04']}",
                invokes=[f"@architect@1.0 [[{SUBAGENT}]]"],
            ),
            step("Design the release", agent="architect@1.0", description=f"> {MESSAGES['05']}"),
            step(
                "Record the release plan",
                description=f"> {MESSAGES['06']}",
                outputs=[file("done.txt")],
            ),
        ],
    )


# ---- the markup: render, parse, validate ------------------------------------------------------

TEXT = st.text(string.ascii_letters + string.digits + " .,;:!?'\"()/`→-", min_size=1, max_size=30)
one_line = TEXT.map(str.strip).filter(bool)
words = st.from_regex(r"[a-z][a-z0-9_.-]{0,8}", fullmatch=True)
ports = st.lists(
    st.builds(Port, name=TEXT.filter(lambda s: s.strip() != ""), type=st.none() | words),
    max_size=3,
)
# Description lines never start a field (`- `) or a heading (`#`), as docs/workflows.md says.
descriptions = st.lists(one_line.map(lambda s: "> " + s), max_size=3).map("\n".join)


@st.composite
def workflows(draw: st.DrawFn) -> Workflow:
    titles = draw(st.lists(one_line, min_size=1, max_size=4, unique=True))
    agents = draw(st.lists(words, min_size=1, max_size=3, unique=True))
    steps = []
    for title in titles:
        others = [t for t in titles if t != title]
        steps.append(
            Step(
                title=title,
                agent=draw(st.sampled_from(agents)),
                channel=draw(words),
                description=draw(descriptions),
                inputs=draw(ports),
                outputs=draw(ports),
                checks=draw(st.lists(TEXT, max_size=2)),
                gates=draw(st.lists(one_line, max_size=2)),
                when=draw(st.none() | one_line),
                on_failure=draw(st.none() | st.sampled_from(others)) if others else None,
                invokes=draw(st.lists(words.map(lambda w: "@" + w), max_size=2)),
            )
        )
    meta = WorkflowMeta(
        name=draw(one_line),
        source_session=draw(st.none() | words),
        agents=agents,
        channel=draw(words),
        created=draw(st.none() | st.just(FIXED_DATE)),
        description=draw(st.none() | one_line),
    )
    return Workflow(
        meta=meta,
        title=draw(st.none() | one_line),
        description=draw(descriptions),
        steps=steps,
    )


@given(workflows())
def test_render_then_parse_gives_the_same_workflow(workflow: Workflow) -> None:
    text = render_workflow(workflow)
    assert parse_workflow(text) == (workflow, [])
    assert render_workflow(parse_workflow(text)[0] or workflow) == text


DOC = """---
type: workflow
name: login
agents: [dev@1.0, architect]
channel: cli
---

# Login

Adds a login endpoint.

## Design the endpoint @architect #design

Write the spec first.

- flow: `docs/brief.md`: markdown, `https://example.com/oauth` -> `docs/specs/login.md`
- gate: the user approves the spec
- invoke: @dev [[20261126-login.03-dev]]

## Build it @dev@1.0 #cli

- flow: none → `src/login.py`: python-module, `tests/test_login.py`: test-file
- check: `` pytest -q -k `login` ``
- when: the spec is approved
- on_failure: Design the endpoint
"""


def test_a_hand_written_workflow_parses() -> None:
    workflow, problems = parse_workflow(DOC)
    assert problems == [] and workflow is not None
    assert workflow.meta == WorkflowMeta(
        name="login", agents=["dev@1.0", "architect"], channel="cli"
    )
    assert (workflow.title, workflow.description) == ("Login", "Adds a login endpoint.")
    design, build = workflow.steps
    assert (design.title, design.agent, design.channel) == (
        "Design the endpoint",
        "architect",
        "design",
    )
    assert design.description == "Write the spec first."
    assert design.inputs == [
        Port(name="docs/brief.md", type="markdown"),
        Port(name="https://example.com/oauth"),
    ]
    assert design.outputs == [Port(name="docs/specs/login.md")]
    assert design.gates == ["the user approves the spec"]
    assert design.invokes == ["@dev [[20261126-login.03-dev]]"]
    assert build.inputs == []
    assert build.outputs == [
        Port(name="src/login.py", type="python-module"),
        Port(name="tests/test_login.py", type="test-file"),
    ]
    assert build.checks == ["pytest -q -k `login`"]
    assert (build.when, build.on_failure) == ("the spec is approved", "Design the endpoint")


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        ("type: workflow", "type: session", 2, "type is 'session', not workflow"),
        ("name: login\n", "", 1, "the frontmatter has no `name`"),
        ("channel: cli\n---", "channel: cli\ncolour: red\n---", 6, "unknown frontmatter key"),
        ("agents: [dev@1.0, architect]", "agents: dev", 4, "`agents` must be a list"),
        ("name: login", "name: ''", 3, "`name` must be a non-empty text"),
        ("## Build it @dev@1.0 #cli", "## Build it @dev@1.0", 20, "step heading without @agent"),
        ("## Build it @dev@1.0 #cli", "## Build it @tester #cli", 20, "@tester is not in `agents`"),
        ("## Build it", "## Design the endpoint", 20, "a second step titled 'Design the endpoint'"),
        ("- flow: none → `src", "- flow: none `src", 22, "flow: expected →"),
        ("- flow: none → `src", "- flow: none → src", 22, "flow: expected a `code span`"),
        ("- flow: `docs/brief.md`", "- gate: `docs/brief.md`", 12, "needs exactly one `flow`"),
        ("- gate: the user", "- flow: none → none\n- gate: the user", 17, "exactly one `flow`"),
        ("- check: `` pytest", "- check: pytest", 23, "check: expected a `code span`"),
        (
            "- when: the spec",
            "- if: the spec",
            24,
            "not a step field: '- if: the spec is approved'",
        ),
        ("- on_failure: Design the endpoint", "- on_failure: Deploy", 25, "no other step 'Deploy'"),
        ("- on_failure: Design the endpoint", "- on_failure: Build it", 25, "no other step"),
        ("- invoke: @dev [[", "- invoke: dev [[", 18, "invoke: 'dev [[20261126"),
        ("- gate: the user approves the spec", "- gate:", 17, "`gate` has no value"),
        ("# Login\n", "# Login\n### Notes\n", 9, "unexpected heading '### Notes'"),
        ("Adds a login", "- Adds a login", 10, "a list item before the first step"),
    ],
)
def test_each_problem_is_reported_at_its_line(old: str, new: str, line: int, message: str) -> None:
    assert old in DOC
    workflow, problems = parse_workflow(DOC.replace(old, new, 1))
    assert workflow is None
    assert any(p.line == line and message in p.message for p in problems), problems
    assert all(p.hint for p in problems)


def test_the_example_in_the_docs_is_valid() -> None:
    docs = (Path(__file__).parent.parent / "docs" / "workflows.md").read_text()
    example = docs.split("```markdown\n")[1].split("\n```\n")[0] + "\n"
    workflow, problems = parse_workflow(example)
    assert problems == [] and workflow is not None
    assert [s.title for s in workflow.steps] == ["Design the endpoint", "Build it", "Fix the tests"]
    assert workflow.steps[1].on_failure == "Fix the tests"


def test_no_frontmatter_and_no_steps() -> None:
    assert [p.message for p in parse_workflow("# Just a title\n")[1]] == [
        "no frontmatter between `---` lines",
        "the workflow has no steps",
    ]
    workflow, problems = parse_workflow(DOC.split("## Design")[0])
    assert workflow is None and [p.message for p in problems] == ["the workflow has no steps"]
    assert (
        parse_workflow("---\n- a\n---\n")[1][0].message
        == "the frontmatter is not a mapping of keys"
    )
    assert parse_workflow("---\na: [\n---\n")[1][0].message.startswith("frontmatter: ")


def test_an_unquoted_created_date_stays_text() -> None:
    text = DOC.replace("channel: cli\n", "channel: cli\ncreated: 2026-11-26T12:00:00Z\n", 1)
    workflow, _ = parse_workflow(text)
    assert workflow is not None and workflow.meta.created == "2026-11-26T12:00:00+00:00"


def test_a_reply_in_a_fence_is_unwrapped_and_must_keep_its_source_session() -> None:
    text = DOC.replace("channel: cli\n", "channel: cli\nsource_session: 20261126-login\n", 1)
    assert unwrap_fence(f"```markdown\n{text}```\n") == text
    assert unwrap_fence(text) == text
    workflow, problems = check_refined(f"````\n{text}````", "20261126-login")
    assert problems == [] and workflow is not None and workflow.meta.name == "login"
    workflow, problems = check_refined(text, "20261126-other")
    assert workflow is None
    assert [p.message for p in problems] == ["source_session is not 20261126-other"]


# ---- the extract of a session log -------------------------------------------------------------


def calls(*items: tuple[str, str]) -> ToolCalls:
    return ToolCalls(calls=[ToolCall(call=c, status=s) for c, s in items])  # type: ignore[arg-type]


def test_extract_infers_flow_checks_gates_and_repairs() -> None:
    log = SessionLog(
        meta=SessionMeta(session_id="20261126-login", started=FIXED_DATE, channel="web"),
        phases=[
            phase(
                "01",
                "Build login",
                user_callout('Add "login"\nwith tests', "planned by @dev@1.0"),
                calls(
                    ("READ docs/brief.md", "success"),
                    ("READ https://example.com/oauth", "success"),
                    ("RESEARCH oauth pkce", "success"),
                    ("READ docs/missing.md", "failure"),
                    ("CREATE src/login.py", "success"),
                    ("EDIT src/app.py", "success"),
                    ("EDIT src/app.py", "success"),
                    ("CREATE src/extra.py", "rejected"),
                    ("EDIT src/other.py", "rejected"),
                    ("EXECUTE pytest -q", "failure"),
                    ("EXECUTE ruff check", "skipped"),
                ),
                error_callout("`EXECUTE pytest -q` failed: exit code 1", "02", "Fix login"),
                user_callout("no extra files", "rejected `CREATE src/extra.py`; it was not run"),
                Callout(
                    kind="decision",
                    body="The user rejected `EDIT src/other.py` without a reason; it was not run.",
                ),
                Callout(kind="decision", body="Memos approved:\n[+] Use pytest\n[-] Use nose"),
                Callout(kind="decision", body="Memos rejected by the user:\n[+] Use tabs"),
            ),
            phase(
                "02",
                "Fix login",
                calls(("EDIT src/login.py", "success"), ("EXECUTE pytest -q", "success")),
                calls(("CHAT_WITH_USER Deploy now?", "success")),
            ),
            phase("03", "Fix login", calls(("INVOKE Architect", "success")), agent="pm"),
        ],
    )
    workflow = extract_workflow(log, FIXED_DATE)
    assert workflow.meta == WorkflowMeta(
        name="login",
        source_session="20261126-login",
        agents=["dev@1.0", "pm"],
        channel="web",
        created=FIXED_DATE,
    )
    first, second, third = workflow.steps
    assert first.description == '> Add "login"\n> with tests'
    assert first.inputs == [
        Port(name="docs/brief.md", type="file"),
        Port(name="https://example.com/oauth", type="url"),
        Port(name="oauth pkce", type="query"),
    ]
    assert first.outputs == [file("src/login.py"), file("src/app.py")]
    assert first.checks == ["pytest -q"]  # neither rejected nor skipped commands
    assert first.gates == [
        'approve `CREATE src/extra.py`; the user rejected it in the session: "no extra files"',
        "approve `EDIT src/other.py`; the user rejected it in the session",
        "approve the memos: [+] Use pytest",
        "approve the memos: [-] Use nose",
    ]
    assert (first.on_failure, first.when) == ("Fix login", None)
    assert (second.title, second.when) == (
        "Fix login",
        '`EXECUTE pytest -q` failed in step "Build login"',
    )
    assert second.gates == ["the user answers: Deploy now?"]
    assert (third.title, third.agent, third.invokes) == ("Fix login (2)", "pm", ["@Architect"])
    assert parse_workflow(render_workflow(workflow)) == (workflow, [])


def test_titles_are_made_unique() -> None:
    assert unique_titles(["A", "B", "A", " ", "A"]) == ["A", "B", "A (2)", "Untitled", "A (3)"]


def test_an_empty_log_gives_a_workflow_that_says_it_has_no_steps() -> None:
    log = SessionLog(meta=SessionMeta(session_id="x", started=FIXED_DATE))
    workflow = extract_workflow(log)
    assert workflow.meta.name == "x" and workflow.steps == []
    assert [p.message for p in parse_workflow(render_workflow(workflow))[1]] == [
        "the workflow has no steps"
    ]


# ---- the command on the story session ---------------------------------------------------------


def test_codify_prints_the_story_workflow(story: Story) -> None:
    result = story.teddy.ok(story.repo, "codify", "story")
    expected = story_workflow()
    assert parse_workflow(result.stdout) == (expected, [])
    assert result.stdout == render_workflow(expected)


def test_output_file_is_never_overwritten_without_force(story: Story, tmp_path: Path) -> None:
    out = tmp_path / "story.workflow.md"
    result = story.teddy.ok(story.repo, "codify", SESSION, "-o", str(out))
    assert result.stdout == "" and f"wrote {out}" in result.stderr
    assert out.read_text() == render_workflow(story_workflow())
    out.write_text("mine\n")
    refused = story.teddy(story.repo, "codify", SESSION, "-o", str(out))
    assert refused.returncode == 1
    assert f"error: {out} already exists" in refused.stderr and "--force" in refused.stderr
    assert out.read_text() == "mine\n"
    story.teddy.ok(story.repo, "codify", SESSION, "-o", str(out), "--force")
    assert out.read_text() == render_workflow(story_workflow())


def test_unknown_session_and_a_session_without_turns(repo: Path, teddy: Teddy) -> None:
    session = teddy.ok(repo, "new", "fresh").stdout.strip()
    result = teddy(repo, "codify", "nope")
    assert result.returncode == 1 and "error:" in result.stderr and "nope" in result.stderr
    empty = teddy(repo, "codify", "fresh")
    assert empty.returncode == 1 and empty.stdout == ""
    assert f"error: session {session} has no turns yet: nothing to codify" in empty.stderr


def test_a_failing_editor_writes_nothing(story: Story, tmp_path: Path) -> None:
    out = tmp_path / "wf.md"
    teddy = Teddy(story.env | {"EDITOR": "false"})
    result = teddy(story.repo, "codify", SESSION, "--interactive", "-o", str(out))
    assert result.returncode == 1 and not out.exists()
    assert "error: false: Editing failed; nothing was written" in result.stderr


# ---- --interactive: a scripted $EDITOR ---------------------------------------------------------

EDITOR_SCRIPT = """\
import json, sys
from pathlib import Path

queue_file, target = Path(sys.argv[1]), Path(sys.argv[2])
queue = json.loads(queue_file.read_text())
old, new = queue.pop(0)
text = target.read_text()
with open(queue_file.with_suffix(".seen"), "a") as seen:
    seen.write(json.dumps(text) + "\\n")
target.write_text(text.replace(old, new, 1))
queue_file.write_text(json.dumps(queue))
"""


def scripted_editor(story: Story, tmp_path: Path, *edits: tuple[str, str]) -> tuple[Teddy, Path]:
    """A Teddy whose $EDITOR applies `edits` (old, new), one per opening."""
    script = tmp_path / "editor.py"
    script.write_text(EDITOR_SCRIPT)
    queue = tmp_path / "edits.json"
    queue.write_text(json.dumps(edits))
    env = story.env | {"EDITOR": f"{sys.executable} {script} {queue}"}
    return Teddy(env), queue


def seen(queue: Path) -> list[str]:
    return [json.loads(line) for line in queue.with_suffix(".seen").read_text().splitlines()]


NEW_FLOW = ("- flow: none → `done.txt`: file", "- flow: `check.py`: file → `done.txt`: file")
BROKEN = ("## Fix the checker", "## Repair the checker")  # on_failure now names no step


def test_interactive_edit_is_checked_and_written(story: Story, tmp_path: Path) -> None:
    teddy, queue = scripted_editor(story, tmp_path, NEW_FLOW)
    out = tmp_path / "wf.md"
    teddy.ok(story.repo, "codify", SESSION, "--interactive", "-o", str(out))
    extract = render_workflow(story_workflow())
    assert seen(queue) == [extract]  # the editor was shown the extract
    assert out.read_text() == extract.replace(*NEW_FLOW)
    workflow = parse_workflow(out.read_text())[0]
    assert workflow is not None and workflow.steps[-1].inputs == [file("check.py")]


def test_an_invalid_edit_can_be_edited_again(story: Story, tmp_path: Path) -> None:
    teddy, queue = scripted_editor(story, tmp_path, BROKEN, BROKEN[::-1])
    result = teddy.ok(story.repo, "codify", SESSION, "--interactive", input="e\n")
    extract = render_workflow(story_workflow())
    assert result.stdout == extract
    assert "the workflow has 1 problem(s)" in result.stderr
    line = extract.split("\n").index("- on_failure: Fix the checker") + 1
    assert f"line {line}: on_failure: no other step 'Fix the checker'" in result.stderr
    assert seen(queue) == [
        extract,
        extract.replace(*BROKEN),
    ]  # the second edit starts from the first


def test_aborting_an_invalid_edit_writes_nothing(story: Story, tmp_path: Path) -> None:
    teddy, _ = scripted_editor(story, tmp_path, BROKEN)
    out = tmp_path / "wf.md"
    result = teddy(story.repo, "codify", SESSION, "--interactive", "-o", str(out), input="a\n")
    assert result.returncode == 1
    assert "error: codify aborted: nothing was written" in result.stderr
    assert "on_failure: no other step" in result.stderr
    assert not out.exists() and result.stdout == ""


# ---- --refine: a model behind a local OpenAI-compatible server ----------------------------------


def refined_text() -> str:
    """A refinement of the story's extract: typed ports and a conditional flow."""
    return (
        render_workflow(story_workflow())
        .replace("`check.py`: file", "`check.py`: python-script")
        .replace(
            "- flow: none → none\n- gate: the user",
            "- flow: none → none\n- when: the check passes\n- gate: the user",
        )
    )


def test_refine_repairs_an_invalid_reply_with_one_retry(
    story: Story, tmp_path: Path, openai_server: OpenAIServer
) -> None:
    teddy = Teddy(story.env | openai_server.env(model="gpt-4o"))
    invalid = "Here is your workflow: two steps, build and test.\n"
    openai_server.push(model_reply(invalid), model_reply(f"```markdown\n{refined_text()}```\n"))
    result = teddy.ok(story.repo, "codify", SESSION, "--refine")
    assert result.stdout == refined_text()
    assert "the refined workflow has 2 problem(s); asking again" in result.stderr
    first, second = openai_server.requests
    system, user = first.json["messages"]
    assert system == {"role": "system", "content": REFINE_SYSTEM}
    assert story.file("session.md").rstrip() in user["content"]
    assert render_workflow(story_workflow()).rstrip() in user["content"]
    messages = second.json["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == invalid
    assert "line 1: no frontmatter between `---` lines" in messages[3]["content"]


def test_refine_gives_up_after_the_retry_and_keeps_the_reply(
    story: Story, tmp_path: Path, openai_server: OpenAIServer
) -> None:
    teddy = Teddy(story.env | openai_server.env())
    elsewhere = refined_text().replace(f"source_session: {SESSION}", "source_session: other")
    openai_server.push(model_reply("nothing useful"), model_reply(elsewhere))
    out = tmp_path / "wf.md"
    result = teddy(story.repo, "codify", SESSION, "--refine", "-o", str(out))
    assert result.returncode == 1 and len(openai_server.requests) == 2
    assert "error: the refined workflow is not valid after 2 attempts" in result.stderr
    assert f"source_session is not {SESSION}" in result.stderr
    kept = Path(result.stderr.split("last reply is kept in ")[1].split(";")[0])
    assert kept.read_text() == elsewhere and not out.exists()
    # Every attempt, as an invalid plan's are (git_teddy.planning.ask.keep_failed).
    assert sorted(p.name for p in kept.parent.iterdir()) == [
        "01.md",
        "01.problems.txt",
        "02.md",
        "02.problems.txt",
    ]
    assert "line 1: no frontmatter" in (kept.parent / "01.problems.txt").read_text()
