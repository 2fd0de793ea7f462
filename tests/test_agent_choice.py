"""Which agent plans a turn, end to end with the real executable: `-a`, else the agent the
previous turn handed to, else the previous turn's agent, and dev (which writes code) for a
session's first turn; the plan's `**Agent:**` header must agree (else the model is asked
again); `branch TURN` plans as TURN's agent; an INVOKEd agent starts on what it was handed."""

from pathlib import Path

import yaml

from testing.commands import Teddy, git
from testing.llm_servers import OpenAIServer, model_reply
from testing.plans import create, plan_text, read
from testing.sessions import queue, report_of

# pathfinder's prompt forbids code changes in these words; the default agent's must not
FORBIDS_CODE = "you never change the\nproject's product code or tests"


def show(repo: Path, env: dict, session: str, path: str, branch: str = "main") -> str:
    return git(repo, env, "show", f"teddy/{session}/{branch}:{path}")


def agent_of(repo: Path, env: dict, session: str, turn: str, branch: str = "main") -> str:
    record = yaml.safe_load(show(repo, env, session, f"{turn}/turn.yaml", branch))
    return str(record["agent"])


def invoke(agent: str, *resources: str, message: str = "Over to you.") -> str:
    handoff = "".join(f"  - [{path}](/{path})\n" for path in resources)
    listed = f"- **Handoff Resources:**\n{handoff}" if resources else ""
    return f"### `INVOKE`\n- **Agent:** {agent}\n{listed}\n{message}\n"


def test_a_change_request_goes_by_default_to_an_agent_that_writes_code(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(replies, plan_text(create("greet.py", "print('hi')\n")))
    session = teddy.ok(repo, "new", "change").stdout.strip()
    result = teddy.ok(repo, "plan", "-m", "Add a greeting script")
    assert f"turn 01 of {session} (@dev): A plan" in result.stdout
    assert agent_of(repo, env, session, "01") == "dev"
    system = show(repo, env, session, "01/system_prompt.xml")
    assert 'agent="dev"' in system and FORBIDS_CODE not in system
    pathfinder = (Path(__file__).parents[1] / "git_teddy/prompts/pathfinder.xml").read_text()
    assert FORBIDS_CODE in pathfinder  # the words checked above are the ones that forbid
    teddy.ok(repo, "execute", "-y")
    assert (repo / "greet.py").read_text() == "print('hi')\n"


def test_a_names_the_agent_over_the_default_and_over_a_handoff(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(
        replies,
        plan_text(invoke("Architect"), agent="Pathfinder"),
        plan_text(create("x.txt", "x\n"), agent="Debugger"),
    )
    session = teddy.ok(repo, "new", "asked").stdout.strip()
    assert "(@pathfinder)" in teddy.ok(repo, "plan", "-m", "explore", "-a", "pathfinder").stdout
    teddy.ok(repo, "execute", "-y")
    # the INVOKE named architect; the user's -a wins
    assert "(@debugger)" in teddy.ok(repo, "plan", "-m", "go", "-a", "Debugger").stdout
    assert [agent_of(repo, env, session, t) for t in ("01", "02")] == ["pathfinder", "debugger"]


def test_a_handoff_wins_over_the_previous_agent_and_the_default(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(
        replies,
        plan_text(invoke("Architect")),
        plan_text(create("design.md", "slices\n"), agent="Architect"),
        plan_text(create("more.md", "more\n"), agent="Architect"),
    )
    session = teddy.ok(repo, "new", "handed").stdout.strip()
    teddy.ok(repo, "plan", "-m", "design it")
    teddy.ok(repo, "execute", "-y")
    assert "(@architect)" in teddy.ok(repo, "plan", "-m", "").stdout
    turn2 = yaml.safe_load(show(repo, env, session, "02/turn.yaml"))
    assert turn2["agent"] == "architect" and turn2["agent_stack"] == ["dev"]
    teddy.ok(repo, "execute", "-y")
    # no handoff in turn 02: architect goes on
    assert "(@architect)" in teddy.ok(repo, "plan", "-m", "and more").stdout


def test_a_header_naming_another_agent_is_sent_back_and_the_fixed_reply_accepted(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env())
    openai_server.push(model_reply(plan_text(create("a.txt", "a\n"), agent="Pathfinder")))
    openai_server.push(model_reply(plan_text(create("a.txt", "a\n"), agent="Dev")))
    session = teddy.ok(repo, "new", "header").stdout.strip()
    result = teddy.ok(repo, "plan", "-m", "add a.txt")
    assert "(@dev)" in result.stdout and "2 attempt(s)" in result.stdout
    assert len(openai_server.requests) == 2
    retry = openai_server.requests[1].json["messages"][-1]["content"]
    assert (
        "line 2: the header says `**Agent:** Pathfinder`, but this turn is planned by Dev "
        "(the first turn's default)" in retry
    )
    assert "write `- **Agent:** Dev`" in retry
    assert "the header says" in show(repo, env, session, "01/attempts/01.problems.txt")
    assert "- **Agent:** Dev" in show(repo, env, session, "01/plan.md")
    assert agent_of(repo, env, session, "01") == "dev"


def test_a_plan_file_naming_another_agent_is_refused_before_anything_is_recorded(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    session = teddy.ok(repo, "new", "fromfile").stdout.strip()
    plan = tmp_path / "plan.md"
    plan.write_text(plan_text(create("a.txt", "a\n"), agent="Architect"))
    before = git(repo, env, "rev-parse", f"teddy/{session}/main")
    result = teddy(repo, "plan", "-m", "add a.txt", "--from-file", str(plan))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "error: the plan is not valid after 1 attempt(s)" in result.stderr
    assert "planned by Dev (the first turn's default)" in result.stderr
    assert "hint: " in result.stderr and "plan again with `-a architect`" in result.stderr
    assert git(repo, env, "rev-parse", f"teddy/{session}/main") == before
    result = teddy.ok(repo, "plan", "-m", "add a.txt", "-a", "architect", "--from-file", str(plan))
    assert "(@architect)" in result.stdout


def test_branch_plans_as_the_agent_of_the_turn_it_replaces(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(
        replies,
        plan_text(create("one.txt", "1\n")),
        plan_text(create("two.txt", "2\n"), agent="Debugger"),
        plan_text(create("alt.txt", "alt\n"), agent="Debugger"),
    )
    session = teddy.ok(repo, "new", "branching").stdout.strip()
    teddy.ok(repo, "plan", "-m", "first")
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "plan", "-m", "second", "-a", "debugger")
    teddy.ok(repo, "execute", "-y")
    result = teddy.ok(repo, "branch", "02", "-m", "another way")
    assert "turn 02-branch-01 (@debugger)" in result.stdout  # not turn 01's dev
    assert agent_of(repo, env, session, "02-branch-01", "02-branch-01") == "debugger"
    assert len(list(replies.iterdir())) == 3  # one reply each: no header was sent back


def test_an_invoked_agent_starts_on_the_handoff_resources_only(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    (repo / "notes.txt").write_text("the invoker's notes\n")
    git(repo, env, "add", "notes.txt")
    git(repo, env, "commit", "-q", "-m", "notes")
    queue(
        replies,
        plan_text(read("notes.txt")),
        plan_text(invoke("Debugger", "app.py", message="Find the bug in app.py.")),
        plan_text(create("fix.txt", "fixed\n"), agent="Debugger"),
    )
    session = teddy.ok(repo, "new", "invoked").stdout.strip()
    for message in ("read the notes", "hand it over"):
        teddy.ok(repo, "plan", "-m", message)
        teddy.ok(repo, "execute", "-y")
    invoker = show(repo, env, session, "02/turn.context").split()
    assert invoker == [
        "notes.txt",
        "session:01/user_prompt.txt",
        "session:01/plan.md",
        "session:01/report.md",
    ]  # the invoker's: its READ and its history
    (invoked,) = report_of(repo, env, session, "02")["action_logs"]
    assert invoked["details"] == {"agent": "Debugger"}
    assert "(@debugger)" in teddy.ok(repo, "plan", "-m", "").stdout
    assert show(repo, env, session, "03/turn.context").split() == ["app.py"]
    log = show(repo, env, session, "03/_context.log")
    assert "Handoff from @dev:\nFind the bug in app.py." in log
    assert "print('hello')" in log  # app.py, handed over
    assert "the invoker's notes" not in log  # notes.txt stayed with the invoker
    assert "session:02/" not in log and "hand it over" not in log  # nor its history
