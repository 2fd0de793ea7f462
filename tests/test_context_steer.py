"""Steering the context (issue 15): the previous turn's history listed in `turn.context`
(spec 002 4.1) and pruned like any entry; a PRUNE of a global or session entry excluding it
for the session until a READ brings it back; `git teddy add` and `drop`, also `--global`."""

import re
from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import plan_text, read
from testing.sessions import queue

HISTORY = ["session:01/user_prompt.txt", "session:01/plan.md", "session:01/report.md"]


def prune(resource: str) -> str:
    return f"### `PRUNE`\n- **Resource:** `{resource}`\n- **Description:** Not needed.\n"


def read_ref(resource: str) -> str:
    return f"### `READ`\n- **Resource:** `{resource}`\n- **Description:** Look again.\n"


def show(repo: Path, env: dict, session: str, path: str) -> str:
    return git(repo, env, "show", f"teddy/{session}/main:{path}")


def context_lines(repo: Path, teddy: Teddy) -> list[str]:
    """The resource rows of `git teddy context` (after the map, before the total)."""
    rows = teddy.ok(repo, "context").stdout.splitlines()
    resources = [r for r in rows[:-1] if re.match(r"\s*(\d+|pruned)  [^(]", r)]
    return resources + rows[-1:]


def test_history_is_listed_kept_and_pruned(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    session = teddy.ok(repo, "new", "history").stdout.strip()
    queue(replies, plan_text(read("app.py")), plan_text(prune("session:01/plan.md")))
    queue(replies, plan_text(read_ref("session:01/plan.md")))
    teddy.ok(repo, "plan", "-m", "Look at the app")
    assert "session:" not in show(repo, env, session, "01/turn.context")
    teddy.ok(repo, "execute", "-y")

    teddy.ok(repo, "plan", "-m", "Drop your old plan")
    listed = show(repo, env, session, "02/turn.context").splitlines()
    assert listed == ["app.py", *HISTORY]
    log = show(repo, env, session, "02/_context.log")
    assert "**Resource:** `session:01/plan.md`" in log
    teddy.ok(repo, "execute", "-y")

    teddy.ok(repo, "plan", "-m", "Go on")
    listed = show(repo, env, session, "03/turn.context").splitlines()
    assert "session:01/plan.md" not in listed  # pruned by turn 02's plan
    assert "session:01/report.md" in listed and "session:01/user_prompt.txt" in listed  # kept
    assert [e for e in listed if e.startswith("session:02/")] == [
        "session:02/user_prompt.txt",
        "session:02/plan.md",
        "session:02/report.md",
    ]
    assert "\n**Resource:** `session:01/plan.md`" not in show(repo, env, session, "03/_context.log")

    # A READ of it brings it back: listed for the next turn again.
    teddy.ok(repo, "execute", "-y")
    names = [line.split()[-1] for line in context_lines(repo, teddy)[:-1]]
    assert "session:01/plan.md" in names and "session:03/report.md" in names


def test_prune_of_global_and_session_entries_then_read(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "global.context").write_text("README.md  # the team's\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "team context")
    session = teddy.ok(repo, "new", "prune").stdout.strip()
    teddy.ok(repo, "add", "app.py")
    queue(replies, plan_text(prune("README.md"), prune("app.py")), plan_text(read("README.md")))
    teddy.ok(repo, "plan", "-m", "Forget the readme and the app")
    teddy.ok(repo, "execute", "-y")

    # Recorded in the session: the report's commit writes the exclusion.
    assert show(repo, env, session, "session.context").splitlines() == ["!README.md"]
    lines = context_lines(repo, teddy)
    pruned = [line for line in lines if "README.md" in line]
    assert len(pruned) == 1 and pruned[0].split()[0] == "pruned"
    assert "`git teddy add README.md`" in pruned[0]
    assert not [line for line in lines if line.endswith(" app.py")]

    teddy.ok(repo, "plan", "-m", "Read the readme again")
    # README.md is not a resource of turn 02 (turn 01's plan, repaired, names it as a link)
    assert "**Resource:** `[README.md](/README.md)`" not in show(
        repo, env, session, "02/_context.log"
    )
    teddy.ok(repo, "execute", "-y")
    assert show(repo, env, session, "session.context").strip() == ""
    lines = context_lines(repo, teddy)
    assert [line.split()[-1] for line in lines if line.endswith("README.md")] == ["README.md"]
    assert not [line for line in lines if line.split()[0] == "pruned"]


def test_add_and_drop_session_and_global(repo: Path, teddy: Teddy, env: dict) -> None:
    session = teddy.ok(repo, "new", "steer").stdout.strip()
    (repo / "docs").mkdir()
    (repo / "docs" / "a.md").write_text("# A\n")
    head = git(repo, env, "rev-parse", f"teddy/{session}/main").strip()

    teddy.ok(repo, "add", "app.py", "docs/*.md")
    assert show(repo, env, session, "session.context").splitlines() == ["app.py", "docs/*.md"]
    subject = git(repo, env, "log", "-1", "--format=%s%n%b", f"teddy/{session}/main")
    assert "teddy: add app.py, docs/*.md" in subject and "Teddy-Phase: context" in subject
    assert git(repo, env, "rev-parse", f"teddy/{session}/main~1").strip() == head
    names = [line.split()[-1] for line in context_lines(repo, teddy)[:-1]]
    assert names == ["app.py", "docs/a.md"]

    # From a subdirectory, as git takes paths.
    teddy.ok(repo / "docs", "drop", "*.md")
    assert show(repo, env, session, "session.context").splitlines() == ["app.py"]

    teddy.ok(repo, "add", "--global", "README.md")
    assert (repo / ".teddy" / "global.context").read_text() == "README.md\n"
    assert git(repo, env, "status", "--porcelain", "--", ".teddy") == "?? .teddy/\n"
    teddy.ok(repo, "drop", "README.md")  # global: excluded for this session only
    assert show(repo, env, session, "session.context").splitlines() == ["app.py", "!README.md"]
    assert [line.split()[0] for line in context_lines(repo, teddy) if "README" in line] == [
        "pruned"
    ]
    teddy.ok(repo, "add", "README.md")
    assert show(repo, env, session, "session.context").splitlines() == ["app.py", "README.md"]
    teddy.ok(repo, "drop", "--global", "README.md")
    assert (repo / ".teddy" / "global.context").read_text() == ""


def test_add_and_drop_refuse_bad_input(repo: Path, teddy: Teddy, env: dict) -> None:
    session = teddy.ok(repo, "new", "refuse").stdout.strip()
    head = git(repo, env, "rev-parse", f"teddy/{session}/main").strip()
    (repo / ".env").write_text("API_KEY=sk-live-0123456789abcdefABCDEF0123\n")
    cases = [
        (["add", "nothing.py"], "nothing.py matches no file"),
        (["add", "*.rs"], "*.rs matches no file"),
        (["add", ".env"], ".env looks like a file of secrets"),
        (["add", "--global", ".env"], ".env looks like a file of secrets"),
        (["drop", "app.py"], "app.py is not in the context"),
        (["drop", "--global", "README.md"], "README.md is not in .teddy/global.context"),
    ]
    for args, message in cases:
        result = teddy.exits(1, repo, *args)
        assert f"error: {message}" in result.stderr, result.stderr
        assert "hint: " in result.stderr and "Traceback" not in result.stderr
    assert git(repo, env, "rev-parse", f"teddy/{session}/main").strip() == head
    assert not (repo / ".teddy").exists()
