"""Issue 14 items 2 and 3, races of two writers: two `plan` or two `execute` on one session
at once. The session is claimed first (git_teddy/session/claims.py): the second run refuses
before it asks a model or runs anything, naming the first (pid, turn, since when); a plan
is recorded only on the branch tip it was planned from, its reply kept otherwise."""

import threading
from pathlib import Path

from git_teddy.errors import EXIT_USER_ERROR
from testing.commands import Teddy, git, in_background, run
from testing.llm_servers import ModelReply, OpenAIServer, Reply
from testing.plans import create, execute, plan_text
from testing.sessions import start
from testing.waits import EVENT_TIMEOUT, wait_for


def assert_fsck_clean(repo: Path, env: dict) -> None:
    fsck = run(["git", "fsck", "--strict"], repo, env)
    assert fsck.returncode == 0, fsck.stderr


def subjects(repo: Path, env: dict, session: str) -> list[str]:
    return git(repo, env, "log", "--format=%s", f"teddy/{session}/main").splitlines()


def held_plan(server: OpenAIServer) -> threading.Event:
    """The next reply is a plan, sent once the returned gate is set: the race happens at
    the test's pace, however loaded the machine is."""
    gate = threading.Event()
    text = plan_text(create("new.txt", "new\n"))
    server.push(Reply(hold=gate, completion=ModelReply(text)))
    return gate


def test_a_second_plan_refuses_before_asking_the_model(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer, teddy_exe: str
) -> None:
    session = teddy.ok(repo, "new", "work").stdout.strip()
    env.update(openai_server.env())
    gate = held_plan(openai_server)
    first = in_background(teddy_exe, repo, env, "plan", "-m", "first")
    wait_for(lambda: openai_server.requests, "the first plan to ask the model")
    second = teddy.exits(EXIT_USER_ERROR, repo, "plan", "-m", "second")
    gate.set()
    assert second.stderr.startswith("error: another git teddy plan of turn 01")
    assert f"(pid {first.pid})" in second.stderr and "\nhint: " in second.stderr
    assert "Traceback" not in second.stderr
    assert len(openai_server.requests) == 1  # the second never asked the model
    _, err = first.communicate(timeout=EVENT_TIMEOUT)
    assert first.returncode == 0, err
    assert subjects(repo, env, session).count("teddy: 01 plan: A plan") == 1
    assert git(repo, env, "show", f"teddy/{session}/main:01/user_prompt.txt") == "first\n"
    assert_fsck_clean(repo, env)


def test_a_branch_that_moved_while_planning_keeps_the_reply(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer, teddy_exe: str
) -> None:
    """`pause` writes to the session without the claim: the plan made meanwhile is not
    recorded over it (no second turn 01, no lost commit), and the model's reply is kept."""
    session = teddy.ok(repo, "new", "work").stdout.strip()
    env.update(openai_server.env())
    gate = held_plan(openai_server)
    first = in_background(teddy_exe, repo, env, "plan", "-m", "first")
    wait_for(lambda: openai_server.requests, "the plan to ask the model")
    teddy.ok(repo, "pause")
    gate.set()
    _, err = first.communicate(timeout=EVENT_TIMEOUT)
    assert first.returncode == EXIT_USER_ERROR, err
    assert err.startswith("error: ") and "\nhint: " in err and "Traceback" not in err
    kept = Path(err.split("the model's reply is kept in ")[1].split(";")[0])
    assert kept.read_text() == plan_text(create("new.txt", "new\n"))
    assert subjects(repo, env, session)[0] == "teddy: session paused"
    assert "teddy: 01 plan: A plan" not in subjects(repo, env, session)
    teddy.ok(repo, "plan", "-m", "again", "--from-file", str(kept))  # the way the hint gives
    assert subjects(repo, env, session).count("teddy: 01 plan: A plan") == 1
    assert_fsck_clean(repo, env)


def test_a_second_execute_refuses_before_running_anything(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path, teddy_exe: str
) -> None:
    runs, go = tmp_path / "runs", tmp_path / "go"
    command = f'echo run >> "{runs}"; while [ ! -e "{go}" ]; do sleep 0.05; done'
    session = start(repo, teddy, execute(command), create("new.txt", "new\n"))
    first = in_background(teddy_exe, repo, env, "execute", "-y")
    wait_for(runs.exists, "the first execute to run its action")
    second = teddy.exits(EXIT_USER_ERROR, repo, "execute", "-y")
    assert second.stderr.startswith("error: another git teddy execute of turn 01")
    assert f"(pid {first.pid})" in second.stderr and "is working on session" in second.stderr
    assert "\nhint: wait for it to finish" in second.stderr and "Traceback" not in second.stderr
    go.touch()
    _, err = first.communicate(timeout=EVENT_TIMEOUT)
    assert first.returncode == 0, err
    assert runs.read_text() == "run\n"  # once
    assert (repo / "new.txt").read_text() == "new\n"
    assert subjects(repo, env, session).count("teddy: 01 report (success)") == 1
    assert_fsck_clean(repo, env)
