"""Conversation branches, restore, and agent handoffs, end to end with the replay model."""

import json
from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import create, plan_text
from testing.sessions import queue, three_turns


def show(repo: Path, env: dict, ref: str) -> str:
    return git(repo, env, "show", ref)


def test_branch_keeps_the_context_with_a_new_message(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    # played here, not copied: the repository map names the repository's folder
    session = three_turns(repo, teddy, replies)
    queue(replies, plan_text(create("alt.txt", "alternative\n")))
    result = teddy.ok(repo, "branch", "02", "-m", "try another way")
    assert "branch 02-branch-01" in result.stdout and "turn 02-branch-01" in result.stdout
    # The files went back to where turn 02 started: after turn 01.
    assert (repo / "one.txt").read_text() == "1\n" and not (repo / "two.txt").exists()
    ref = f"teddy/{session}/02-branch-01"
    original, new = f"teddy/{session}/main:02", f"{ref}:02-branch-01"
    assert show(repo, env, f"{new}/turn.context") == show(repo, env, f"{original}/turn.context")
    assert show(repo, env, f"{new}/user_prompt.txt") == "try another way\n"
    assert show(repo, env, f"{new}/_context.02.log") == show(repo, env, f"{original}/_context.log")
    old_log, new_log = (
        show(repo, env, f"{original}/_context.log"),
        show(repo, env, f"{new}/_context.log"),
    )
    # Same resources, different message.
    summary = "\n## 4. Context Summary\n"  # the last one: the system prompt names it too
    assert old_log.rsplit(summary, 1)[1] == new_log.rsplit(summary, 1)[1]
    assert "try another way" in new_log and "try another way" not in old_log

    def base(turn: str) -> str:
        return show(repo, env, f"{turn}/turn.yaml").split("base_snapshot: ")[1].split()[0]

    assert base(new) == base(original)

    teddy.ok(repo, "execute", "-y")
    queue(replies, plan_text(create("later.txt", "later\n")))
    teddy.ok(repo, "plan", "-m", "go on")  # later turns go on the branch
    log = json.loads(teddy.ok(repo, "log", "--json").stdout)
    assert ("02-branch-01.03", "02-branch-01") in [(c["turn"], c["branch"]) for c in log]
    graph = git(repo, env, "log", "--graph", "--oneline", "--all")
    assert "02-branch-01" in teddy.ok(repo, "log").stdout and "|" in graph


def test_restore_an_earlier_turn_and_back(
    repo: Path, teddy: Teddy, env: dict, replies: Path, three_turns_session: str
) -> None:
    session = three_turns_session
    head = git(repo, env, "rev-parse", "HEAD")
    assert (repo / "one.txt").read_text() == "one\n" and (repo / "two.txt").exists()
    result = teddy.ok(repo, "restore", "01")
    assert "restored turn 01" in result.stdout
    assert "the next plan continues from turn 01, on a new conversation branch" in result.stdout
    commits = json.loads(teddy.ok(repo, "log", "--json").stdout)
    snapshot_01 = next(c for c in commits if c["turn"] == "01" and c["phase"] == "report")[
        "snapshot"
    ]
    tree = git(repo, env, "ls-tree", "-r", "--name-only", snapshot_01).split()
    assert sorted(p.name for p in repo.iterdir() if p.name != ".git") == sorted(tree)
    assert (repo / "one.txt").read_text() == "1\n" and not (repo / "two.txt").exists()
    assert git(repo, env, "rev-parse", "HEAD") == head

    back = result.stdout.split("to return to them: ")[1].strip()
    teddy.ok(repo, *back.split()[2:])
    assert (repo / "one.txt").read_text() == "one\n" and (repo / "two.txt").read_text() == "2\n"
    assert json.loads(teddy.ok(repo, "show", "--json").stdout)["id"] == session


def test_restore_never_loses_uncommitted_work(
    repo: Path, teddy: Teddy, env: dict, replies: Path, three_turns_session: str
) -> None:
    (repo / "app.py").write_text("print('my precious edit')\n")
    (repo / "scratch.txt").write_text("notes\n")
    refused = teddy(repo, "restore", "01")
    assert refused.returncode == 1
    assert refused.stderr.startswith("error: your working tree has changes that restoring")
    assert (repo / "app.py").read_text() == "print('my precious edit')\n"
    forced = teddy.ok(repo, "restore", "01", "--force")
    assert (repo / "app.py").read_text() == "print('hello')\n" and not (
        repo / "scratch.txt"
    ).exists()
    back = forced.stdout.split("to return to them: ")[1].strip()
    teddy.ok(repo, *back.split()[2:])
    assert (repo / "app.py").read_text() == "print('my precious edit')\n"
    assert (repo / "scratch.txt").read_text() == "notes\n"


def test_restore_refuses_unknown_or_unexecuted_turns(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(replies, plan_text(create("x.txt", "x\n")))
    teddy.ok(repo, "new", "early")
    teddy.ok(repo, "plan", "-m", "not executed")
    result = teddy(repo, "restore", "01")
    assert result.returncode == 1 and "has not been executed" in result.stderr
    result = teddy(repo, "restore", "zz")
    assert result.returncode == 1 and "no turn 'zz'" in result.stderr


def test_invoke_then_conclude_switch_agents_and_back(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    handoff = "- **Handoff Resources:**\n  - [{0}](/{0})\n\n"
    invoke = "### `INVOKE`\n- **Agent:** Debugger\n" + handoff.format("app.py") + "Find the bug.\n"
    conclude = "### `CONCLUDE`\n" + handoff.format("README.md") + "Fixed: it was a typo.\n"
    queue(
        replies,
        plan_text(invoke, agent="Architect"),
        plan_text(conclude, agent="Debugger"),
        plan_text(create("done.txt", "ok\n"), agent="Architect"),
    )
    session = teddy.ok(repo, "new", "handoff").stdout.strip()
    teddy.ok(repo, "plan", "-m", "start", "-a", "architect")
    teddy.ok(repo, "execute", "-y")
    result = teddy.ok(repo, "plan", "-m", "")
    assert "(@debugger)" in result.stdout
    turn2 = show(repo, env, f"teddy/{session}/main:02/turn.yaml")
    assert "agent: debugger" in turn2 and "agent_stack:\n- architect" in turn2
    log2 = show(repo, env, f"teddy/{session}/main:02/_context.log")
    assert "Handoff from @architect:\nFind the bug." in log2 and "[app.py](/app.py)" in log2
    teddy.ok(repo, "execute", "-y")
    result = teddy.ok(repo, "plan", "-m", "thanks")
    assert "(@architect)" in result.stdout
    turn3 = show(repo, env, f"teddy/{session}/main:03/turn.yaml")
    assert "agent_stack: []" in turn3
    assert "Handoff from @debugger:\nFixed: it was a typo." in show(
        repo, env, f"teddy/{session}/main:03/_context.log"
    )
