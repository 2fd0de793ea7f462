"""Issue 26 item 9: `teddy.apply=never` (the result kept as a snapshot by the user's choice)
still writes approved memos to the user's `.teddy/memos.yaml`, and a turn that went as
planned exits 0, not 6 (kept because it could not be applied)."""

from pathlib import Path

import pytest
import yaml

from testing.commands import Teddy, git
from testing.plans import WORKTREE, create
from testing.sessions import report_of, start


@pytest.mark.parametrize("runs_commands", [False, True], ids=["files-only", "worktree"])
def test_apply_never_writes_approved_memos_and_exits_0(
    repo: Path, teddy: Teddy, env: dict[str, str], runs_commands: bool
) -> None:
    git(repo, env, "config", "teddy.apply", "never")
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "memos.yaml").write_text("- Use tabs.\n")  # the user's, uncommitted
    actions = [create("new.txt", "new\n"), *([WORKTREE] if runs_commands else [])]
    session = start(repo, teddy, *actions, memos="[+] Greet politely.")
    done = teddy.exits(0, repo, "execute", "-y")
    assert "result: not applied (teddy.apply)" in done.stdout
    assert not (repo / "new.txt").exists()  # the files are left alone
    memos = yaml.safe_load((repo / ".teddy" / "memos.yaml").read_text())
    assert memos == ["Use tabs.", "Greet politely."]
    report = report_of(repo, env, session)
    assert report["memos"]["decision"] == "approved"
    assert report["run_summary"]["applied"] == "not applied (teddy.apply)"
