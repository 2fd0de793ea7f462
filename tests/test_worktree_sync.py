"""A reused scratch worktree is brought to the next turn's base by what differs (issue 31,
item 3): the second EXECUTE turn moves it with `git read-tree -m -u` from the state the first
run left it settled at, never `git reset --hard` (which checks every file), and the files
that did not change are not rewritten (same inode and mtime); what changed is there, what
went is gone, ignored leftovers of the last run are cleaned; a worktree changed behind its
record is reset whole. Counted with GIT_TRACE2_EVENT,
never timed."""

import json
import os
from pathlib import Path

from testing.commands import Teddy, git
from testing.plans import WORKTREE, create, execute, plan_text
from testing.repos import commit_files
from testing.sessions import report_of, start
from testing.worktrees import scratch_paths


def git_commands(teddy: Teddy, repo: Path, *args: str) -> list[list[str]]:
    """Run `git teddy ARGS`; the arguments of each git process it started (options first)."""
    trace = repo.parent / "trace2.json"
    trace.unlink(missing_ok=True)
    Teddy({**teddy.env, "GIT_TRACE2_EVENT": str(trace)}).ok(repo, *args)
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    return [event["argv"][1:] for event in events if event["event"] == "start"]


def ran(commands: list[list[str]], *words: str) -> bool:
    return any(all(word in argv for word in words) for argv in commands)


def test_a_second_execute_moves_the_worktree_by_the_difference(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    files = {f"keep/file-{n:02d}.txt": f"kept {n}\n" for n in range(20)}
    (repo / "keep").mkdir()
    commit_files(repo, env, {**files, "gone.txt": "gone\n", ".gitignore": "build/\n"})
    session = start(
        repo, teddy, create("first.txt", "1\n"), execute("mkdir -p build && touch build/out")
    )
    first = git_commands(teddy, repo, "execute", "-y")
    assert ran(first, "reset", "--hard")  # a new worktree: checked out once
    [scratch] = scratch_paths(repo, env)
    assert (scratch / "build" / "out").exists()
    before = {p: os.stat(scratch / p) for p in files}

    # The user changes one file and deletes another; the next turn's base has both changes.
    (repo / "keep" / "file-03.txt").write_text("the user's edit\n")
    (repo / "gone.txt").unlink()
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(create("second.txt", "2\n"), WORKTREE))
    teddy.ok(repo, "plan", "-m", "again", "--from-file", str(plan_file))
    second = git_commands(teddy, repo, "execute", "-y")
    assert report_of(repo, env, session, "02")["run_summary"]["status"] == "SUCCESS"
    assert ran(second, "read-tree", "-m", "-u") and not ran(second, "reset", "--hard")
    assert (scratch / "keep" / "file-03.txt").read_text() == "the user's edit\n"
    assert not (scratch / "gone.txt").exists() and not (scratch / "build").exists()
    assert (scratch / "first.txt").read_text() == "1\n" and (scratch / "second.txt").exists()
    for path, stat in before.items():
        now = os.stat(scratch / path)
        rewritten = (now.st_ino, now.st_mtime_ns) != (stat.st_ino, stat.st_mtime_ns)
        assert rewritten == (path == "keep/file-03.txt"), path
    # The result holds both turns' files and the user's change, nothing of the ignored build.
    result = report_of(repo, env, session, "02")
    assert result["run_summary"]["status"] == "SUCCESS"
    listed = git(repo, env, "ls-tree", "-r", "--name-only", f"teddy/{session}/main").split()
    assert "build/out" not in listed

    # A settled worktree whose HEAD moved since (someone ran git in it) is not trusted: it
    # is reset whole, and the third turn sees its base exactly.
    git(scratch, env, "checkout", "-q", "--detach", "HEAD~1")
    (scratch / "app.py").write_text("changed in the scratch worktree\n")
    plan_file.write_text(plan_text(create("third.txt", "3\n"), WORKTREE))
    teddy.ok(repo, "plan", "-m", "and again", "--from-file", str(plan_file))
    third = git_commands(teddy, repo, "execute", "-y")
    assert ran(third, "reset", "--hard") and not ran(third, "read-tree", "-m", "-u")
    assert (scratch / "app.py").read_text() == (repo / "app.py").read_text()
    assert (scratch / "second.txt").read_text() == "2\n"
