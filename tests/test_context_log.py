"""A golden `_context.log`: a turn with global, session and turn context, a URL served
locally, a missing file, memos and the automatic history of the previous turn. Regenerate
with `UPDATE_GOLDEN=1 make test` and review the diff."""

import os
import re
from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import edit, plan_text, read

GOLDEN = Path(__file__).parent / "golden" / "turn02_context.log"


def test_golden_context_log(
    repo: Path, teddy: Teddy, env: dict, server: str, tmp_path: Path
) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "a.md").write_text("# A\n\nFirst doc.\n")
    (repo / "docs" / "b.md").write_text("# B\n\n```python\nprint('fenced')\n```\n")
    (repo / ".teddy" / "prompts").mkdir(parents=True)
    (repo / ".teddy" / "global.context").write_text("README.md\ndocs/*.md  # every doc\n")
    (repo / ".teddy" / "memos.yaml").write_text("- Use pytest for tests.\n")
    (repo / ".teddy" / "prompts" / "dev.xml").write_text(  # the default agent
        "<prompt>Plan carefully.</prompt>\n"
    )
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "project with team context")
    session = teddy.ok(repo, "new", "golden").stdout.strip()

    # The session's own context, edited on its branch the way a user would (a worktree).
    side = tmp_path / "session-branch"
    git(repo, env, "worktree", "add", "-q", str(side), f"teddy/{session}/main")
    (side / "session.context").write_text(f"{server}/page\nmissing.txt\n")
    git(side, env, "commit", "-qam", "session context: the API docs")
    git(repo, env, "worktree", "remove", str(side))
    # A URL edited in by hand is fetched once allowed for the session (a local server).
    git(repo, env, "config", "teddy.web.allowPrivate", "true")
    teddy.ok(repo, "context", "--allow-url", f"{server}/page")

    env.update(TEDDY_PROVIDER="replay", TEDDY_REPLAY_DIR=str(tmp_path / "replies"))
    (tmp_path / "replies").mkdir()
    (tmp_path / "replies" / "1.md").write_text(plan_text(read("app.py")))
    (tmp_path / "replies" / "2.md").write_text(plan_text(edit("app.py", "hello", "hi")))
    teddy.ok(repo, "plan", "-m", "Look at the app")
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "plan", "-m", "Now change it")

    log = git(repo, env, "show", f"teddy/{session}/main:02/_context.log")
    # Fixed dates make every id stable; only the server's port changes from run to run.
    log = log.replace(server, "http://127.0.0.1:PORT")
    # ... and the machine's own facts in the system information.
    for fact in ("Project", "OS", "Shell", "git", "Tools on PATH", "Not on PATH"):
        log = re.sub(rf"^- {fact}: .*$", f"- {fact}: HOST", log, count=1, flags=re.M)
    log = re.sub(r"(?<=repository map: )\d+(?= tokens)", "N", log, count=1)
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(log)
    assert log == GOLDEN.read_text()
