"""A turn's result is read back from the scratch worktree by what its actions may have written
(issue 31 item 3): an EDIT or CREATE by its file, a READ by nothing, a command by one scan.
Counted, never timed: with GIT_TRACE2_EVENT on, git reports how many paths each of its
directory walks visited and how many entries each index refresh lstat()ed; a whole-tree pass
is one that reaches every file. The second EXECUTE turn of a plan with EDITs, CREATEs, READs
and one command makes one such pass, at 60 files as at 600, where the worktree used to be
staged again after every action (and its index reset and refreshed each time). The result
stays the tree git itself stages for the same changes (`git add --all` in a fresh worktree):
changed, deleted, new, exec bit, symlink, ignored files left out."""

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from testing.commands import Teddy, git
from testing.plans import WORKTREE, create, edit, execute, plan_text, read
from testing.repos import commit_files
from testing.sessions import report_of, start
from testing.waits import wait_for
from testing.worktrees import cache_root, scratch_paths

# The command writes everywhere: a tracked file changed, one deleted, one made executable, a
# symlink, a new folder, ignored files (a file and a folder).
COMMAND = (
    "echo more >> d1/f1.txt && rm d2/f2.txt && chmod +x d0/f3.txt && ln -s d1/f1.txt link"
    " && mkdir -p newdir && echo new > newdir/n.txt && echo junk > out.log"
    " && mkdir -p build && echo b > build/o"
)


def actions() -> list[str]:
    return [
        edit("d0/f0.txt", "file 0", "file 0 edited"),
        create("notes/a.txt", "a note\n"),
        create("skip.log", "ignored by .gitignore\n"),
        read("d0/f0.txt"),
        execute(COMMAND),
        edit("newdir/n.txt", "new", "new, then edited"),  # a file the command made
        read("newdir/n.txt"),
    ]


@dataclass
class Work:
    """What the git processes one command ran in the scratch worktree did to the whole tree,
    from their trace2 events."""

    walks: int  # directory walks (read_directory regions: status, add, clean, ls-files -o)
    lstats: int  # index entries refreshed (one lstat each)
    index_writes: int  # index entries written (each write writes them all)
    commands: list[str]  # the git commands, by name


def traced(teddy: Teddy, repo: Path, *args: str) -> Work:
    trace = repo.parent / "trace2.json"
    trace.unlink(missing_ok=True)
    Teddy({**teddy.env, "GIT_TRACE2_EVENT": str(trace)}).ok(repo, *args)
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    # The processes working in a scratch worktree (in the cache), not in the user's.
    root = cache_root(teddy.env)
    scratch = {
        event["sid"]
        for event in events
        if event["event"] == "def_repo" and Path(event["worktree"]).is_relative_to(root)
    }
    mine = [event for event in events if event["sid"] in scratch]
    data = [event for event in mine if event["event"] == "data"]

    def total(key: str) -> int:
        return sum(int(event["value"]) for event in data if event["key"] == key)

    walks = sum(
        1
        for event in mine
        if event["event"] == "region_enter" and event.get("label") == "read_directory"
    )
    commands = [event["name"] for event in mine if event["event"] == "cmd_name"]
    return Work(walks, total("refresh/sum_lstat"), total("write/cache_nr"), commands)


def second_turn(repo: Path, teddy: Teddy, env: dict, files: int) -> tuple[Work, str, str]:
    """A repository of `files` files; a first EXECUTE turn makes the scratch worktree, the
    second (traced) runs `actions()`. Its work, base and snapshot."""
    tracked = {f"d{n % 3}/f{n}.txt": f"file {n}\n" for n in range(files)}
    for folder in ("d0", "d1", "d2"):
        (repo / folder).mkdir()
    commit_files(repo, env, {**tracked, ".gitignore": "*.log\nbuild/\n"})
    session = start(repo, teddy, WORKTREE)
    teddy.ok(repo, "execute", "-y")
    # The checkout that made the scratch worktree may have left its entries racily clean
    # (the files written in the second its index was): git re-reads those once, and their
    # refreshed entries would join the split part. Once the clock is past the newest file,
    # a turn refreshes them for good, and the traced turn shows the steady state.
    newest = max(int(p.lstat().st_mtime) for p in cache_root(teddy.env).rglob("*"))
    wait_for(lambda: int(time.time()) > newest, "the clock to pass the scratch files' second")
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(WORKTREE))
    teddy.ok(repo, "plan", "-m", "settle", "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")
    plan_file.write_text(plan_text(*actions()))
    teddy.ok(repo, "plan", "-m", "write everywhere", "--from-file", str(plan_file))
    work = traced(teddy, repo, "execute", "-y")
    summary = report_of(repo, env, session, "03")["run_summary"]
    assert summary["status"] == "SUCCESS"
    return work, summary["base_snapshot"], summary["snapshot"]


def git_stages(repo: Path, env: dict, base: str) -> str:
    """The tree `git add --all` stages after the same actions in a fresh worktree of `base`."""
    folder = repo.parent / "oracle"
    git(repo, env, "worktree", "add", "-q", "--detach", str(folder), base)
    (folder / "d0/f0.txt").write_text("file 0 edited\n")
    (folder / "notes").mkdir()
    (folder / "notes/a.txt").write_text("a note\n")
    (folder / "skip.log").write_text("ignored by .gitignore\n")
    subprocess.run(COMMAND, shell=True, cwd=folder, check=True)
    (folder / "newdir/n.txt").write_text("new, then edited\n")
    git(folder, env, "add", "--all")
    return git(folder, env, "write-tree").strip()


@pytest.mark.parametrize("files", [60, 600])
def test_a_turn_reads_back_what_its_actions_wrote(
    repo: Path, teddy: Teddy, env: dict, files: int
) -> None:
    work, base, snapshot = second_turn(repo, teddy, env, files)
    assert git(repo, env, "rev-parse", f"{snapshot}^{{tree}}").strip() == git_stages(
        repo, env, base
    )
    listed = git(repo, env, "ls-tree", "-r", snapshot).splitlines()
    assert any(line.startswith("100755") and line.endswith("\td0/f3.txt") for line in listed)
    assert any(line.startswith("120000") and line.endswith("\tlink") for line in listed)
    # One pass over the tree: the scan after the command (a walk of every folder, an lstat
    # of every file); none for the EDITs, CREATEs and READs, none to commit the result.
    assert work.walks == 1 and work.lstats < 1.5 * files, work
    # The index written a few times in all, not once or twice per action, and each write
    # writes what changed (a split index), never every entry again.
    assert work.index_writes < files // 2, work


def test_leftovers_are_removed_never_through_a_symlink(repo: Path, teddy: Teddy, env: dict) -> None:
    """The ignored file a CREATE left is removed by the next run without a walk of the
    worktree; when a later command made its folder a symlink, nothing is followed."""
    commit_files(repo, env, {"a.txt": "a\n", ".gitignore": "*.log\n"})
    outside = repo.parent / "outside"
    outside.mkdir()
    (outside / "x.log").write_text("not teddy's\n")
    start(
        repo,
        teddy,
        create("logs/x.log", "ignored\n"),
        execute(f"rm -rf logs && ln -s {outside} logs"),
    )
    teddy.ok(repo, "execute", "-y")
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(plan_text(create("kept.log", "ignored too\n"), WORKTREE))
    teddy.ok(repo, "plan", "-m", "again", "--from-file", str(plan_file))
    work = traced(teddy, repo, "execute", "-y")
    assert (outside / "x.log").read_text() == "not teddy's\n"
    [scratch] = scratch_paths(repo, env)
    assert (scratch / "kept.log").exists()  # this run's, removed by the next
    plan_file.write_text(plan_text(WORKTREE))
    teddy.ok(repo, "plan", "-m", "and again", "--from-file", str(plan_file))
    teddy.ok(repo, "execute", "-y")
    assert not (scratch / "kept.log").exists() and (outside / "x.log").exists()
    # The command's scan is the one walk: no `git clean` of every folder.
    assert work.walks == 1 and "clean" not in work.commands, work
