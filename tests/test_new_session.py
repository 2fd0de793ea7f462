"""`git teddy new`, end to end through the installed executable in real repositories."""

import json
import subprocess
from pathlib import Path

from testing.commands import Teddy, git, run
from testing.sessions import kept_snapshots
from testing.waits import EVENT_TIMEOUT

TODAY = "20261126"  # the sealed environment's fixed commit date


def session_branch(session: str) -> str:
    return f"teddy/{session}/main"


def test_new_prints_id_creates_branch_with_trailers(repo: Path, teddy: Teddy, env: dict) -> None:
    result = teddy.ok(repo, "new", "add-user-auth")
    session = f"{TODAY}-add-user-auth"
    assert result.stdout.strip() == session
    assert git(repo, env, "branch", "--list", "teddy/*").split() == [session_branch(session)]
    message = git(repo, env, "log", "-1", "--format=%B", session_branch(session))
    parsed = run(["git", "interpret-trailers", "--parse"], repo, env, input=message, check=True)
    assert f"Teddy-Session: {session}" in parsed.stdout.splitlines()
    listed = json.loads(teddy.ok(repo, "list", "--json").stdout)
    assert [(s["id"], s["turns"], s["status"]) for s in listed] == [(session, 0, "active")]
    assert set(listed[0]) >= {"id", "status", "started", "channel", "turns", "branches"}


def test_session_tree_holds_log_and_context(repo: Path, teddy: Teddy, env: dict) -> None:
    session = teddy.ok(repo, "new", "auth", "--channel", "dev").stdout.strip()
    files = git(repo, env, "ls-tree", "--name-only", session_branch(session)).split()
    assert files == ["session.context", "session.md"]
    log = git(repo, env, "show", f"{session_branch(session)}:session.md")
    assert log.startswith("---\ntype: session\n")
    assert f"session_id: {session}" in log and "status: active" in log and "channel: dev" in log
    assert "started: '2026-11-26T12:00:00+00:00'" in log
    assert git(repo, env, "show", f"{session_branch(session)}:session.context") == ""


def test_dirty_tree_is_recorded_and_left_untouched(repo: Path, teddy: Teddy, env: dict) -> None:
    (repo / ".gitignore").write_text("*.log\n")
    git(repo, env, "add", ".gitignore")
    git(repo, env, "commit", "-qm", "ignore logs")
    (repo / "app.py").write_text("print('modified')\n")  # modified, unstaged
    (repo / "staged.txt").write_text("staged\n")
    git(repo, env, "add", "staged.txt")  # staged
    (repo / "notes.txt").write_text("untracked\n")  # untracked
    (repo / "debug.log").write_text("ignored\n")  # ignored
    (repo / "README.md").unlink()  # deleted
    status_before = git(repo, env, "status", "--porcelain")
    index_before = (repo / ".git" / "index").read_bytes()

    session = teddy.ok(repo, "new", "dirty").stdout.strip()

    assert (repo / ".git" / "index").read_bytes() == index_before
    assert git(repo, env, "status", "--porcelain") == status_before
    base = json.loads(teddy.ok(repo, "list", "--json").stdout)[0]["base_snapshot"]
    # No parent: the HEAD it was taken on is a trailer, so a push never carries its history.
    assert git(repo, env, "rev-list", "--parents", "-n1", base).split() == [base]
    head = git(repo, env, "rev-parse", "HEAD").strip()
    assert f"Teddy-Head: {head}" in git(repo, env, "log", "-1", "--format=%B", base)
    snapshot_files = git(repo, env, "ls-tree", "-r", "--name-only", base).split()
    assert snapshot_files == [".gitignore", "app.py", "notes.txt", "staged.txt"]
    assert git(repo, env, "show", f"{base}:app.py") == "print('modified')\n"
    assert kept_snapshots(repo, env, session) == [base]


def test_clean_tree_snapshot_holds_heads_tree_not_head(repo: Path, teddy: Teddy, env: dict) -> None:
    teddy.ok(repo, "new", "clean")
    base = json.loads(teddy.ok(repo, "list", "--json").stdout)[0]["base_snapshot"]
    head = git(repo, env, "rev-parse", "HEAD").strip()
    assert base != head  # a commit of its own, with no parent, not the user's commit
    assert git(repo, env, "rev-parse", f"{base}^{{tree}}") == git(
        repo, env, "rev-parse", "HEAD^{tree}"
    )
    assert git(repo, env, "rev-list", "--count", base).strip() == "1"
    assert (
        git(repo, env, "log", "-1", "--format=%(trailers:key=Teddy-Head,valueonly)", base).strip()
        == head
    )


def test_session_log_holds_only_session_commits_and_survives_gc(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    (repo / "app.py").write_text("print('dirty')\n")
    session = teddy.ok(repo, "new", "gc-proof").stdout.strip()
    subjects = git(repo, env, "log", "--format=%s", session_branch(session)).splitlines()
    assert subjects == [f"teddy: new session {session}"]
    assert len(git(repo, env, "for-each-ref", "refs/teddy/").splitlines()) == 1  # the keep ref
    snapshots = kept_snapshots(repo, env, session)
    assert len(snapshots) == 1
    git(repo, env, "reflog", "expire", "--expire=now", "--all")
    git(repo, env, "gc", "-q", "--prune=now")
    for sha in snapshots:
        git(repo, env, "cat-file", "-e", f"{sha}^{{commit}}")
        assert git(repo, env, "show", f"{sha}:app.py") == "print('dirty')\n"


def test_name_collisions_get_a_suffix(repo: Path, teddy: Teddy) -> None:
    ids = [teddy.ok(repo, "new", "same").stdout.strip() for _ in range(3)]
    assert ids == [f"{TODAY}-same", f"{TODAY}-same-2", f"{TODAY}-same-3"]


def test_concurrent_new_never_loses_a_session(repo: Path, env: dict) -> None:
    procs = [
        subprocess.Popen(
            ["git", "teddy", "new", "race"],
            cwd=repo,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    outputs = [p.communicate(timeout=EVENT_TIMEOUT) for p in procs]
    assert [p.returncode for p in procs] == [0] * 6, outputs
    ids = sorted(out.strip() for out, _ in outputs)
    assert len(set(ids)) == 6
    branches = git(repo, env, "branch", "--list", "teddy/*", "--format=%(refname:short)").split()
    assert sorted(branches) == sorted(session_branch(i) for i in ids)


def test_repository_without_commits(empty_repo: Path, teddy: Teddy, env: dict) -> None:
    repo = empty_repo
    (repo / "first.txt").write_text("not committed yet\n")
    session = teddy.ok(repo, "new", "fresh").stdout.strip()
    base = json.loads(teddy.ok(repo, "list", "--json").stdout)[0]["base_snapshot"]
    assert git(repo, env, "show", f"{base}:first.txt") == "not committed yet\n"
    assert git(repo, env, "rev-list", "--count", base).strip() == "1"
    assert git(repo, env, "status", "--porcelain") == "?? first.txt\n"
    assert session.endswith("-fresh")


def test_invalid_names(repo: Path, teddy: Teddy, env: dict) -> None:
    for bad in ["Add User", "add_user", "_lead", "trail-", "a--b", "x" * 61, "ümlaut"]:
        result = teddy(repo, "new", bad)
        assert result.returncode == 1, bad
        assert result.stderr.startswith("error: invalid session name"), result.stderr
        assert "\nhint: " in result.stderr and "Traceback" not in result.stderr
    assert git(repo, env, "for-each-ref", "refs/teddy", "refs/heads/teddy") == ""
