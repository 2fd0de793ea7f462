"""`execute` saves and reads only the paths its turn writes (issue 31 item 2): the turn's one
full scan of the working tree is the one of `plan`. The user's edits to those paths (tracked,
staged, untracked) are saved, listed by `saved`, and come back with `undo` and `restore`;
their other files are never read into that state, nor changed by execute, undo or a restore
of it. git's work is counted with GIT_TRACE2_EVENT, never timed."""

import json
import os
from pathlib import Path

import pytest

from testing.commands import Teddy, git
from testing.plans import WORKTREE, create, edit
from testing.repos import commit_files
from testing.sessions import report_of, start

LONG = "".join(f"line {n}\n" for n in range(1, 21))  # a file to edit in two far places
WRITES = ("app.py", "two.txt", "x/one.txt")  # the three files the plan below writes
EXIT_NOT_APPLIED = 6  # execute's exit when the result could not be applied
SCANS = ("status", "add", "diff-files", "diff-index")  # git commands that walk the files


def user_git(teddy: Teddy, repo: Path, *args: str, code: int = 0) -> list[list[str]]:
    """Run `git teddy ARGS` (exiting `code`); the arguments of each git process it ran in
    the user's working tree (not in a scratch worktree)."""
    trace = repo.parent / "trace2.json"
    trace.unlink(missing_ok=True)
    Teddy({**teddy.env, "GIT_TRACE2_EVENT": str(trace)}).exits(code, repo, *args)
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    where = {e["sid"]: e.get("worktree") for e in events if e["event"] == "def_repo"}
    return [
        e["argv"][1:]
        for e in events
        if e["event"] == "start"
        and where.get(e["sid"]) == str(repo)
        and e["argv"][1:2] != ["teddy"]
    ]


def command(argv: list[str]) -> str:
    """The git command of `argv` (after the `-c NAME=VALUE` options)."""
    while argv[0] == "-c":
        argv = argv[2:]
    return argv[0]


def scans(argv: list[str]) -> bool:
    """Whether the git process walked or re-read the working tree."""
    return command(argv) in SCANS or "--others" in argv or "--refresh" in argv


def pathspecs(argv: list[str]) -> list[str]:
    return argv[argv.index("--") + 1 :] if "--" in argv else []


def stats(repo: Path, paths: list[str]) -> dict[str, tuple[int, int, bytes]]:
    """Inode, mtime and bytes of each of `paths`: what a write would change."""
    return {
        p: (os.stat(repo / p).st_ino, os.stat(repo / p).st_mtime_ns, (repo / p).read_bytes())
        for p in paths
    }


@pytest.mark.parametrize("runs", [False, True], ids=["files-only", "worktree"])
def test_execute_reads_only_the_paths_it_writes(
    repo: Path, teddy: Teddy, env: dict, runs: bool
) -> None:
    commit_files(repo, env, {".gitignore": "*.log\n", "other.txt": "other\n"})
    (repo / "junk").mkdir()
    for n in range(300):  # many untracked files, in a folder and at the top
        (repo / "junk" / f"u{n:03d}.txt").write_text(f"untracked {n}\n")
    for n in range(100):
        (repo / f"top{n:03d}.txt").write_text(f"untracked {n}\n")
    actions = [create("x/one.txt", "1\n"), edit("app.py", "hello", "bye"), create("two.txt", "2\n")]
    start(repo, teddy, *actions, *([WORKTREE] if runs else []))
    (repo / "other.txt").write_text("the user's edit after planning\n")
    (repo / "later.log").write_text("ignored\n")

    commands = user_git(teddy, repo, "execute", "-y")
    assert (repo / "x/one.txt").read_text() == "1\n" and "bye" in (repo / "app.py").read_text()
    assert not [argv for argv in commands if command(argv) == "status"]  # no full scan
    specs = sorted(f":(literal){path}" for path in WRITES)
    walks = [argv for argv in commands if scans(argv)]
    assert walks, commands
    for argv in walks:  # every walk of the working tree is limited to the three paths
        assert pathspecs(argv) and set(pathspecs(argv)) <= set(specs), argv[-12:]
    assert any("--others" in argv and sorted(pathspecs(argv)) == specs for argv in walks)
    assert (repo / "other.txt").read_text() == "the user's edit after planning\n"


def _edited_session(repo: Path, teddy: Teddy, env: dict) -> tuple[str, dict[str, bytes]]:
    """A planned turn writing long.txt (tracked), todo.txt (untracked), keep.log (tracked
    though ignored) and gen/new.txt; then the user's edits of their own: to long.txt
    (staged), todo.txt and keep.log far from the turn's, and to files the turn does not
    write. Returns the session and the user's files then."""
    commit_files(repo, env, {"long.txt": LONG, "other.txt": "other\n", ".gitignore": "*.log\n"})
    (repo / "keep.log").write_text(LONG)
    git(repo, env, "add", "--force", "keep.log")
    git(repo, env, "commit", "-qm", "a tracked file the ignore rules match")
    (repo / "todo.txt").write_text(LONG)
    session = start(
        repo,
        teddy,
        edit("long.txt", "line 5", "line five"),
        edit("todo.txt", "line 7", "line seven"),
        edit("keep.log", "line 3", "line three"),
        create("gen/new.txt", "generated\n"),
    )
    (repo / "long.txt").write_text(LONG.replace("line 19", "line 19, mine"))
    git(repo, env, "add", "long.txt")
    (repo / "todo.txt").write_text(LONG.replace("line 18", "line 18, mine"))
    (repo / "keep.log").write_text(LONG.replace("line 17", "line 17, mine"))
    (repo / "other.txt").write_text("other, edited after planning\n")
    (repo / "notes.txt").write_text("untracked, not in the plan\n")
    (repo / "build.log").write_text("ignored\n")
    mine = {p: (repo / p).read_bytes() for p in ("long.txt", "todo.txt", "keep.log")}
    return session, mine


def _saved_state(teddy: Teddy, repo: Path, what: str) -> str:
    """The id of the saved state `git teddy saved` lists for `what` (abbreviated)."""
    [line] = [line for line in teddy.ok(repo, "saved").stdout.splitlines() if what in line]
    return line.split()[0]


UNTOUCHED = ["other.txt", "notes.txt", "build.log", "README.md"]


def test_the_saved_state_holds_the_written_paths_and_undo_brings_them_back(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    _, mine = _edited_session(repo, teddy, env)
    others = stats(repo, UNTOUCHED)
    index = git(repo, env, "ls-files", "-s")
    executed = teddy.ok(repo, "execute", "-y")
    assert "merged with your edits: 4 file(s) changed" in executed.stdout
    assert (repo / "long.txt").read_text() == LONG.replace("line 5\n", "line five\n").replace(
        "line 19", "line 19, mine"
    )  # merged with the user's edit
    assert stats(repo, UNTOUCHED) == others

    # The saved state holds the user's versions of the paths written, nothing else of theirs.
    state = _saved_state(teddy, repo, "applying turn 01")
    for path, data in mine.items():
        assert git(repo, env, "cat-file", "blob", f"{state}:{path}") == data.decode()
    tree = git(repo, env, "ls-tree", "-r", "--name-only", state).split()
    assert "notes.txt" not in tree  # the user's untracked file the turn does not write
    assert git(repo, env, "show", f"{state}:other.txt") == "other\n"  # as at the base

    undone = teddy.ok(repo, "undo")
    assert {p: (repo / p).read_bytes() for p in mine} == mine
    assert not (repo / "gen").exists()
    assert stats(repo, UNTOUCHED) == others
    assert git(repo, env, "ls-files", "-s") == index  # the staged edit stays staged
    back = undone.stdout.split("to return to them: ")[1].split()[2:]
    # undo's own saved state: the turn's files again (over the user's: --force), only them
    teddy.ok(repo, *back, "--force")
    assert "line five" in (repo / "long.txt").read_text()
    assert (repo / "gen/new.txt").read_text() == "generated\n"
    assert stats(repo, UNTOUCHED) == others


def test_restoring_the_saved_state_puts_back_those_paths_alone(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    _, mine = _edited_session(repo, teddy, env)
    teddy.ok(repo, "execute", "-y")
    state = _saved_state(teddy, repo, "applying turn 01")
    # The user goes on editing a file the turn did not write; restoring the saved state
    # (even with --force) leaves it, and every other file of theirs, as it is now.
    (repo / "other.txt").write_text("edited again after execute\n")
    others = stats(repo, UNTOUCHED)
    restored = teddy.ok(repo, "restore", state, "--force")
    assert {p: (repo / p).read_bytes() for p in mine} == mine
    assert not (repo / "gen").exists()
    assert stats(repo, UNTOUCHED) == others
    # restore saved the applied files first, as those paths alone: restoring it goes back
    # (over the user's own versions now there: --force).
    back = restored.stdout.split("to return to them: ")[1].split()[2:]
    teddy.ok(repo, *back, "--force")
    assert "line seven" in (repo / "todo.txt").read_text()
    assert (repo / "gen/new.txt").read_text() == "generated\n"
    assert stats(repo, UNTOUCHED) == others


def test_an_ignored_file_where_the_turn_writes_is_never_replaced(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    commit_files(repo, env, {".gitignore": "*.log\n"})
    session = start(repo, teddy, create("out.log", "from the turn\n"), create("two.txt", "2\n"))
    (repo / "out.log").write_text("the user's ignored file\n")  # in no snapshot
    refused = user_git(teddy, repo, "execute", "-y", code=EXIT_NOT_APPLIED)
    assert not [argv for argv in refused if command(argv) == "status"]  # found by its paths
    applied = report_of(repo, env, session)["run_summary"]["applied"]
    assert applied.startswith("not applied: writing out.log would replace out.log")
    assert (repo / "out.log").read_text() == "the user's ignored file\n"
    assert not (repo / "two.txt").exists()  # nothing written


def index_work(teddy: Teddy, repo: Path, *args: str) -> tuple[int, int, int]:
    """Run `git teddy ARGS`; how many git processes in the user's working tree read an
    index of every tracked file, how many index entries they wrote in all (trace2's
    `read/cache_nr` and `write/cache_nr`: each read or write of an index handles all of it),
    and how many compared two trees (`diff-tree`)."""
    trace = repo.parent / "trace2.json"
    trace.unlink(missing_ok=True)
    Teddy({**teddy.env, "GIT_TRACE2_EVENT": str(trace)}).ok(repo, *args)
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    where = {e["sid"]: e.get("worktree") for e in events if e["event"] == "def_repo"}
    data = [e for e in events if e["event"] == "data" and where.get(e["sid"]) == str(repo)]
    reads = {e["sid"] for e in data if e["key"] == "read/cache_nr" and int(e["value"]) > 100}
    written = sum(int(e["value"]) for e in data if e["key"] == "write/cache_nr")
    names = [
        e["name"] for e in events if e["event"] == "cmd_name" and where.get(e["sid"]) == str(repo)
    ]
    return len(reads), written, names.count("diff-tree")


@pytest.mark.parametrize("runs", [False, True], ids=["files-only", "worktree"])
def test_saving_the_written_paths_never_copies_the_whole_index(
    repo: Path, teddy: Teddy, env: dict, runs: bool
) -> None:
    """The user's versions of the three paths are staged in an index of those paths alone:
    the user's index (of 600 files) is read once, to list them, and no index of every file
    is written, where a copy of the whole index used to be read three times and written
    once, and each of two listings of the turn's change read the index too (the saved
    state's content is checked by the tests above)."""
    tracked = {f"d{n % 6}/f{n:03d}.txt": f"file {n}\n" for n in range(600)}
    for folder in {path.split("/")[0] for path in tracked}:
        (repo / folder).mkdir()
    commit_files(repo, env, tracked)
    actions = [create("x/one.txt", "1\n"), edit("app.py", "hello", "bye"), create("two.txt", "2\n")]
    start(repo, teddy, *actions, *([WORKTREE] if runs else []))
    (repo / "d0" / "f000.txt").write_text("the user's edit, not the turn's\n")

    reads, written, tree_diffs = index_work(teddy, repo, "execute", "-y")
    assert reads == 1 and written < 100, (reads, written)
    assert tree_diffs == 1  # what the turn changed, listed once for saving and applying
    assert "bye" in (repo / "app.py").read_text() and (repo / "two.txt").read_text() == "2\n"
    assert (repo / "d0" / "f000.txt").read_text() == "the user's edit, not the turn's\n"
