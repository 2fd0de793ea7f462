"""Secrets that pass through a turn (a context file, a command's output, a model's reply)
never reach a commit on a session branch, and the report says what was redacted where."""

from pathlib import Path

import yaml

from testing.commands import Teddy, git
from testing.fake_secrets import fake
from testing.plans import execute, plan_text

GITHUB = "ghp_" + fake(36, seed=1)
AWS = "AKIA" + fake(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", seed=2)
OPENAI = "sk-proj-" + fake(48, seed=3)


def test_seeded_secrets_never_reach_a_session_commit(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "global.context").write_text("settings.env\n")
    (repo / "settings.env").write_text(f"OPENAI_API_KEY={OPENAI}\nDEBUG=1\n")
    # staged: an untracked file holding a secret is left out of snapshots, so of the context
    git(repo, env, "add", "settings.env")
    replies = tmp_path / "replies"
    replies.mkdir()
    chat = f"### `CHAT_WITH_USER`\nI found the token {GITHUB} in your shell history.\n"
    split = f'{AWS[:10]}""{AWS[10:]}'  # the shell joins it: only the output holds the key
    (replies / "1.md").write_text(plan_text(execute(f"echo aws key {split}"), chat))
    env.update(TEDDY_PROVIDER="replay", TEDDY_REPLAY_DIR=str(replies))
    session = teddy.ok(repo, "new", "secrets").stdout.strip()
    teddy.ok(repo, "plan", "-m", f"my token is {GITHUB}")
    teddy.ok(repo, "execute", "-y")

    history = git(repo, env, "log", "-p", "--format=%B", "--branches=teddy/*")
    assert "01/_context.log" in history and "01/report.md" in history
    for secret in (GITHUB, AWS, OPENAI):
        assert secret not in history
    for kind in ("github-token", "aws-access-key", "openai-key"):
        assert f"[REDACTED:{kind}]" in history

    report = yaml.safe_load(git(repo, env, "show", f"teddy/{session}/main:01/report.md"))
    assert report["redactions"] == [
        {"file": "action 1 (EXECUTE) stdout", "kind": "aws-access-key", "count": 1, "lines": [1]}
    ]
    record = yaml.safe_load(git(repo, env, "show", f"teddy/{session}/main:01/turn.yaml"))
    where = {(row["file"], row["kind"]) for row in record["redactions"]}
    assert ("_context.log", "openai-key") in where and ("user_prompt.txt", "github-token") in where
    assert ("plan.md", "github-token") in where
