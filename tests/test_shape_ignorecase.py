"""Repository shape of issue 26: core.ignoreCase=true, where git takes `README.md` and
`readme.md` (and `docs/` and `Docs/`) for one file. A plan naming one file under two
spellings is refused before anything is written, with or without an EXECUTE: the model
plans again (its problems say how the repository spells the path), and a plan recorded
before the setting was on is refused by `execute` with an error and a hint."""

from pathlib import Path

import pytest

from testing.commands import Teddy, git
from testing.plans import create, edit, execute, plan_text
from testing.sessions import queue, start


@pytest.fixture
def folding(repo: Path, env: dict) -> Path:
    git(repo, env, "config", "core.ignoreCase", "true")
    (repo / "Docs").mkdir()
    (repo / "Docs" / "guide.md").write_text("guide\n")
    git(repo, env, "add", "Docs")
    git(repo, env, "commit", "-qm", "docs")
    return repo


def tracked(repo: Path, env: dict, tree: str) -> list[str]:
    return git(repo, env, "ls-tree", "-r", "--name-only", tree).split()


@pytest.mark.parametrize("command", [None, "true"], ids=["files-only", "with-execute"])
def test_one_file_under_two_spellings_is_planned_again(
    folding: Path, teddy: Teddy, env: dict, replies: Path, command: str | None
) -> None:
    runs = [execute(command)] if command else []
    queue(
        replies,
        plan_text(create("readme.md", "lower\n"), create("docs/new.md", "new\n"), *runs),
        plan_text(edit("README.md", "demo", "DEMO"), create("Docs/new.md", "new\n"), *runs),
    )
    session = teddy.ok(folding, "new", "case").stdout.strip()
    teddy.ok(folding, "plan", "-m", "write the docs")
    plan = git(folding, env, "show", f"teddy/{session}/main:01/plan.md")
    assert "readme.md" not in plan and "Docs/new.md" in plan  # the refused one re-planned
    teddy.ok(folding, "execute", "-y")
    assert (folding / "README.md").read_text() == "# DEMO\n"
    assert (folding / "Docs" / "new.md").read_text() == "new\n"
    assert not (folding / "docs").exists() and not (folding / "readme.md").exists()
    git(folding, env, "add", "-A")
    assert sorted(tracked(folding, env, git(folding, env, "write-tree").strip())) == [
        "Docs/guide.md",
        "Docs/new.md",
        "README.md",
        "app.py",
    ]


def test_a_plan_recorded_before_the_setting_is_refused_by_execute(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    start(repo, teddy, create("docs/a.md", "a\n"), create("Docs/b.md", "b\n"), execute("true"))
    git(repo, env, "config", "core.ignoreCase", "true")
    refused = teddy.exits(1, repo, "execute", "-y")
    assert "Docs/b.md" in refused.stderr and "\nhint: " in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr
    assert not (repo / "docs").exists() and not (repo / "Docs").exists()
