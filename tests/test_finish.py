"""`git teddy finish` marks a session completed; `resume` opens it again, and a session that
is active again has no resume point left over."""

import json
from pathlib import Path

import yaml

from testing.commands import Teddy, git
from testing.plans import create, plan_text
from testing.sessions import start


def frontmatter(repo: Path, env: dict, session: str) -> dict:
    text = git(repo, env, "show", f"teddy/{session}/main:session.md")
    return dict(yaml.safe_load(text.split("---\n")[1]))


def listed(repo: Path, teddy: Teddy, *args: str) -> list[str]:
    return [row["id"] for row in json.loads(teddy.ok(repo, "list", "--json", *args).stdout)]


def test_finish_then_resume(repo: Path, teddy: Teddy, env: dict, replies: Path) -> None:
    session = start(repo, teddy, create("a.txt", "a\n"))
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "pause")
    assert frontmatter(repo, env, session)["resume_point"] == "01"

    done = teddy.ok(repo, "finish")
    assert done.stdout == f"finished {session}; reopen with: git teddy resume {session}\n"
    meta = frontmatter(repo, env, session)
    assert meta["status"] == "completed" and meta.get("ended")
    assert "resume_point" not in meta
    assert listed(repo, teddy, "--status", "completed") == [session]

    (replies / "01.md").write_text(plan_text("### `CHAT_WITH_USER`\nAnything else?\n"))
    teddy.ok(repo, "resume", "--yolo", "-m", "one more thing", input="")
    meta = frontmatter(repo, env, session)
    assert meta["status"] != "completed" and "resume_point" not in meta
    assert listed(repo, teddy, "--status", "completed") == []
