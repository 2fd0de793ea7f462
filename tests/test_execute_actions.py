"""The actions that talk to the outside (READ of URLs, RESEARCH against a local SearxNG-style
server), the ones recorded for the next turn, and worktree links."""

from pathlib import Path

import pexpect
import pytest
import yaml

from git_teddy.errors import EXIT_TURN_FAILED
from testing.commands import Teddy, git
from testing.plans import execute, plan_text
from testing.sessions import report_of, start
from testing.waits import EVENT_TIMEOUT


def research(*queries: str) -> str:
    blocks = "".join(f"```text\n{q}\n```\n" for q in queries)
    return f"### `RESEARCH`\n- **Description:** Look it up.\n{blocks}"


def url_read(url: str) -> str:
    return f"### `READ`\n- **Resource:** [docs]({url})\n- **Description:** Docs.\n"


def test_read_url_and_research(repo: Path, teddy: Teddy, env: dict, server: str) -> None:
    git(repo, env, "config", "teddy.searchUrl", f"{server}/search")
    git(repo, env, "config", "teddy.web.allowPrivate", "true")  # the test server's address
    session = start(repo, teddy, url_read(f"{server}/page"), research("git trailers", "worktrees"))
    teddy.ok(repo, "execute", "-y")
    read_log, research_log = report_of(repo, env, session)["action_logs"]
    assert read_log["status"] == "SUCCESS" and read_log["params"]["kind"] == "url"
    assert research_log["status"] == "SUCCESS"
    results = research_log["details"]["results"]
    assert list(results) == ["git trailers", "worktrees"]
    assert len(results["worktrees"]) == 5  # the top results only
    assert results["worktrees"][0]["title"] == "About worktrees"


def test_url_failure_and_research_without_endpoint(
    repo: Path, teddy: Teddy, env: dict, server: str
) -> None:
    git(repo, env, "config", "teddy.web.allowPrivate", "true")  # the test server's address
    session = start(repo, teddy, url_read(f"{server}/gone"))
    teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    log = report_of(repo, env, session)["action_logs"][0]
    assert log["status"] == "FAILURE" and "HTTP 404" in log["details"]["error"]

    plan_file = repo.parent / "plan2.md"
    plan_file.write_text(plan_text(research("anything")))
    teddy.ok(repo, "plan", "-m", "search", "--from-file", str(plan_file))
    teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    log = report_of(repo, env, session, "02")["action_logs"][0]
    assert log["status"] == "FAILURE" and "teddy.searchUrl" in log["details"]["error"]


def test_chat_reply_and_rejected_memos(repo: Path, teddy: Teddy, env: dict) -> None:
    plan = plan_text(
        "### `CHAT_WITH_USER`\nShall I go on with the login form?\n", memos="[+] Forms use htmx."
    )
    teddy.ok(repo, "new", "chat")
    (repo.parent / "plan.md").write_text(plan)
    teddy.ok(repo, "plan", "-m", "talk", "--from-file", str(repo.parent / "plan.md"))
    child = pexpect.spawn(
        "git", ["teddy", "execute"], cwd=str(repo), env=env, encoding="utf-8", timeout=EVENT_TIMEOUT
    )
    child.expect(r"Approve these memory updates\?")
    child.sendline("n")
    child.expect(r"\[q\]uit")
    child.sendline("y")
    child.expect("Shall I go on with the login form")
    child.expect("Your reply")
    child.sendline("Yes, but keep it small")
    child.expect(pexpect.EOF)
    child.close()
    report = report_of(repo, env, "20261126-chat")
    assert report["memos"]["decision"] == "rejected"
    assert report["action_logs"][0]["details"]["reply"] == "Yes, but keep it small"
    assert not (repo / ".teddy").exists()


def test_a_script_answers_the_model_through_execute_y(repo: Path, teddy: Teddy, env: dict) -> None:
    chat = "### `CHAT_WITH_USER`\nShall I go on?\n"
    start(repo, teddy, chat)
    answered = teddy.ok(repo, "execute", "-y", input="yes, go on\n")
    assert "ok: replied" in answered.stdout
    assert report_of(repo, env, "20261126-work")["action_logs"][0]["details"]["reply"] == (
        "yes, go on"
    )
    teddy.ok(repo, "plan", "-m", "again", "--from-file", str(repo.parent / "plan.md"))
    silent = teddy.ok(repo, "execute", "-y", input="")  # nothing on stdin: said, not waited
    assert "ok: no reply" in silent.stdout
    assert "answer the model: `git teddy plan -m REPLY`" in silent.stderr


def test_recorded_actions_feed_the_next_turn_context(repo: Path, teddy: Teddy, env: dict) -> None:
    prune = "### `PRUNE`\n- **Resource:** [app.py](/app.py)\n- **Description:** Done.\n"
    read = "### `READ`\n- **Resource:** [{0}](/{0})\n- **Description:** Look.\n"
    # (an INVOKE would start the next agent on its handoff resources: test_agent_choice.py)
    session = start(repo, teddy, read.format("README.md"), read.format("app.py"))
    teddy.ok(repo, "execute", "-y")
    plan_file = repo.parent / "next.md"
    plan_file.write_text(plan_text(prune))
    teddy.ok(repo, "plan", "-m", "next", "--from-file", str(plan_file))
    context = git(repo, env, "show", f"teddy/{session}/main:02/turn.context")
    history = "session:01/user_prompt.txt\nsession:01/plan.md\nsession:01/report.md\n"
    assert context == "README.md\napp.py\n" + history  # the history, listed (spec 002 4.1)
    teddy.ok(repo, "execute", "-y")
    plan_file.write_text(plan_text(execute("true")))
    teddy.ok(repo, "plan", "-m", "third", "--from-file", str(plan_file))
    context = git(repo, env, "show", f"teddy/{session}/main:03/turn.context")
    assert context == "README.md\n" + history + history.replace("01/", "02/")


@pytest.mark.parametrize("pattern", ["tools/", "tools"])  # the link is a file to git (issue 26)
def test_linked_ignored_paths(repo: Path, teddy: Teddy, env: dict, pattern: str) -> None:
    (repo / ".gitignore").write_text(f"{pattern}\n")
    git(repo, env, "add", ".gitignore")
    git(repo, env, "commit", "-qm", "ignore tools")
    (repo / "tools").mkdir()
    (repo / "tools" / "hello.sh").write_text("echo from the project tools\n")
    git(repo, env, "config", "--add", "teddy.worktree.link", "tools")
    session = start(repo, teddy, execute("sh tools/hello.sh > out.txt"))
    teddy.ok(repo, "execute", "-y")
    summary = report_of(repo, env, session)["run_summary"]
    assert summary["status"] == "SUCCESS"
    files = git(repo, env, "ls-tree", "-r", "--name-only", summary["snapshot"]).split()
    assert "out.txt" in files and not any(f.startswith("tools") for f in files)
    assert (repo / "out.txt").read_text() == "from the project tools\n"


def test_the_smallest_output_cap_still_cuts(repo: Path, teddy: Teddy, env: dict) -> None:
    """teddy.execute.outputCap=1 keeps no byte of a long output (it once kept it all)."""
    git(repo, env, "config", "teddy.execute.outputCap", "1")
    session = start(repo, teddy, execute("printf 'abcdefghij%.0s' 1 2 3 4 5"))
    teddy.ok(repo, "execute", "-y")
    (log,) = report_of(repo, env, session)["action_logs"]
    kept = yaml.safe_dump(log["details"])
    assert "abcdefghij" not in kept and "50 bytes cut" in kept
