"""Issue 26 item 14: teddy's refusals where git refuses, worded as git words them: a
repository another user owns (safe.directory), and a held index lock (nothing written)."""

from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import edit
from testing.sessions import report_of, start


def test_dubious_ownership_gives_gits_safe_directory_hint(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    other_owner = Teddy({**env, "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1"})
    refused = other_owner.exits(1, repo, "list")
    assert "dubious ownership" in refused.stderr, refused.stderr
    assert "safe.directory" in refused.stderr and "\nhint: " in refused.stderr
    assert "not a git repository" not in refused.stderr and "git init" not in refused.stderr
    git(repo, env, "config", "--global", "--add", "safe.directory", str(repo))
    other_owner.ok(repo, "list")  # trusted as git trusts it


def test_a_held_index_lock_stops_teddy_before_writing(repo: Path, teddy: Teddy, env: dict) -> None:
    index_lock = ["rev-parse", "--path-format=absolute", "--git-path", "index.lock"]
    lock = Path(git(repo, env, *index_lock).strip())
    session = start(repo, teddy, edit("README.md", "demo", "DEMO"))
    lock.write_text("")  # another git process is writing the index
    kept = teddy.exits(6, repo, "execute", "-y")  # the result is kept, not applied
    assert "index.lock" in kept.stdout + kept.stderr
    assert (repo / "README.md").read_text() == "# demo\n"
    lock.unlink()
    teddy.ok(repo, "restore", "01")
    assert (repo / "README.md").read_text() == "# DEMO\n"
    base = report_of(repo, env, session)["run_summary"]["base_snapshot"]
    lock.write_text("")
    refused = teddy.exits(1, repo, "restore", base[:12])
    assert "index.lock" in refused.stderr and "\nhint: " in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr
    assert (repo / "README.md").read_text() == "# DEMO\n"
    lock.unlink()
    teddy.ok(repo, "restore", base[:12])
    assert (repo / "README.md").read_text() == "# demo\n"
