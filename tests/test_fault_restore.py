"""Issue 14 items 5, 6 and 7: a killed `restore`/`branch` is told by the next command and
its saved state is listed (`git teddy saved`); a restore never drops a file the user wrote
(even one teddy put back from a saved state) without --force, and makes no conversation
branch until the user plans; applying a result over conflicting edits merges what merges
and leaves conflict markers, with a way back through teddy."""

from pathlib import Path

import pytest

from git_teddy.errors import EXIT_CONFLICTS, EXIT_USER_ERROR
from testing.commands import Result, Teddy, git, run
from testing.plans import create, edit, execute, plan_text
from testing.sessions import queue, report_of, start


def assert_fsck_clean(repo: Path, env: dict) -> None:
    fsck = run(["git", "fsck", "--strict"], repo, env)
    assert fsck.returncode == 0, fsck.stderr


def assert_refused(result: Result) -> None:
    assert result.returncode == EXIT_USER_ERROR, result.stderr
    assert result.stderr.startswith("error: ") and "\nhint: " in result.stderr
    assert "Traceback" not in result.stderr


def session_branches(repo: Path, env: dict, session: str) -> list[str]:
    refs = git(repo, env, "for-each-ref", "--format=%(refname)", f"refs/heads/teddy/{session}/")
    return [ref.rsplit("/", 1)[1] for ref in refs.split()]


@pytest.mark.parametrize(
    ("step", "command"),
    [
        ("restore.saved", ["restore", "01", "--force"]),
        ("restore.placed", ["restore", "01", "--force"]),
        ("branch.saved", ["branch", "02", "-m", "other way", "--force"]),
        ("branch.placed", ["branch", "02", "-m", "other way", "--force"]),
    ],
)
def test_a_killed_restore_or_branch_is_told_and_its_saved_state_listed(
    repo: Path,
    teddy: Teddy,
    env: dict,
    replies: Path,
    three_turns_session: str,
    step: str,
    command: list[str],
) -> None:
    session = three_turns_session
    (repo / "mine.txt").write_bytes(b"written by hand\r\n\x00")
    (repo / "one.txt").write_text("one, edited by hand\n")
    teddy.killed_at(step, repo, *command)
    assert_fsck_clean(repo, env)

    listed = teddy.ok(repo, "saved")  # the next command: it tells, once
    assert "note: an interrupted `git teddy`" in listed.stderr and "Traceback" not in listed.stderr
    back = listed.stderr.split("to get them back: ")[1].split()
    assert back[:4] == ["git", "teddy", "restore", "-s"] and back[4] == session
    saved_id = back[5]
    assert f"{saved_id}  " in listed.stdout and "your files before " in listed.stdout
    assert "note:" not in teddy.ok(repo, "show").stderr

    teddy.ok(repo, *back[2:], "--force")
    assert (repo / "mine.txt").read_bytes() == b"written by hand\r\n\x00"
    assert (repo / "one.txt").read_text() == "one, edited by hand\n"
    assert_fsck_clean(repo, env)


def test_a_refused_restore_leaves_no_note(
    repo: Path, teddy: Teddy, env: dict, replies: Path, three_turns_session: str
) -> None:
    (repo / "mine.txt").write_text("mine\n")
    assert_refused(teddy(repo, "restore", "01"))
    assert "note:" not in teddy.ok(repo, "saved").stderr
    assert (repo / "mine.txt").read_text() == "mine\n"


def test_a_file_put_back_from_a_saved_state_is_never_dropped_without_force(
    repo: Path, teddy: Teddy, env: dict, replies: Path, three_turns_session: str
) -> None:
    session = three_turns_session
    (repo / "mine.txt").write_text("my own file\n")
    refused = teddy(repo, "restore", "01")
    assert_refused(refused)
    assert "mine.txt" in refused.stderr
    forced = teddy.ok(repo, "restore", "01", "--force")
    assert not (repo / "mine.txt").exists()
    back = forced.stdout.split("to return to them: ")[1].split()
    teddy.ok(repo, *back[2:])  # teddy puts the user's own files back...
    assert (repo / "mine.txt").read_text() == "my own file\n"
    again = teddy(repo, "restore", "01")  # ...and they stay the user's
    assert_refused(again)
    assert "mine.txt" in again.stderr
    assert (repo / "mine.txt").read_text() == "my own file\n"
    (repo / "two.txt").write_text("2, edited by hand\n")  # a file a turn wrote, edited
    assert_refused(teddy(repo, "restore", "01"))
    assert (repo / "two.txt").read_text() == "2, edited by hand\n"
    saved = teddy.ok(repo, "saved", session).stdout
    assert "your files before restoring 01" in saved and len(saved.splitlines()) >= 2
    assert_fsck_clean(repo, env)


def test_restoring_an_older_turn_makes_no_branch_until_a_plan(
    repo: Path, teddy: Teddy, env: dict, replies: Path, three_turns_session: str
) -> None:
    session = three_turns_session
    for _ in range(2):
        result = teddy.ok(repo, "restore", "01")
        assert "the next plan continues from turn 01" in result.stdout
    assert session_branches(repo, env, session) == ["main"]
    queue(replies, plan_text(create("alt.txt", "alt\n")))
    planned = teddy.ok(repo, "plan", "-m", "another way")
    assert "02-branch-01" in planned.stdout
    assert sorted(session_branches(repo, env, session)) == ["02-branch-01", "main"]
    teddy.ok(repo, "execute", "-y")
    assert (repo / "alt.txt").read_text() == "alt\n" and (repo / "one.txt").read_text() == "1\n"
    # the latest turn of a branch: the session just continues there, no fork
    teddy.ok(repo, "restore", "03")
    queue(replies, plan_text(create("four.txt", "4\n")))
    assert "04" in teddy.ok(repo, "plan", "-m", "go on").stdout
    assert sorted(session_branches(repo, env, session)) == ["02-branch-01", "main"]
    assert_fsck_clean(repo, env)


def test_a_failed_plan_after_a_restore_leaves_no_branch(
    repo: Path, teddy: Teddy, env: dict, replies: Path, three_turns_session: str
) -> None:
    session = three_turns_session
    teddy.ok(repo, "restore", "01")
    bad = repo.parent / "bad.md"
    bad.write_text("not a plan\n")
    assert_refused(teddy(repo, "plan", "-m", "x", "--from-file", str(bad)))
    assert session_branches(repo, env, session) == ["main"]
    queue(replies, plan_text(create("alt.txt", "alt\n")))
    assert "02-branch-01" in teddy.ok(repo, "plan", "-m", "again").stdout


def test_conflicting_edits_merge_like_stash_pop(repo: Path, teddy: Teddy, env: dict) -> None:
    (repo / "data.bin").write_bytes(b"\x00\x01base")
    (repo / "notes.txt").write_text("a\nb\nc\n")
    git(repo, env, "add", ".")
    git(repo, env, "commit", "-qm", "more")
    session = start(
        repo,
        teddy,
        edit("app.py", "print('hello')", "print('model')"),
        edit("README.md", "# demo", "# demo by the model"),
        create("new.txt", "new\n"),
        execute("printf '\\000\\002model' > data.bin"),
    )
    (repo / "app.py").write_text("print('mine')\n")
    (repo / "data.bin").write_bytes(b"\x00\x03mine")
    (repo / "notes.txt").write_text("a\nb, mine\nc\n")
    result = teddy.exits(EXIT_CONFLICTS, repo, "execute", "-y")
    assert "Traceback" not in result.stderr
    assert "conflicts (markers: yours / turn 01) in: app.py" in result.stdout
    assert "conflict in data.bin: your version is kept" in result.stdout
    assert (repo / "app.py").read_text() == (
        "<<<<<<< yours\nprint('mine')\n=======\nprint('model')\n>>>>>>> turn 01\n"
    )
    assert (repo / "data.bin").read_bytes() == b"\x00\x03mine"
    assert (repo / "README.md").read_text() == "# demo by the model\n"  # merged cleanly
    assert (repo / "new.txt").read_text() == "new\n"
    assert (repo / "notes.txt").read_text() == "a\nb, mine\nc\n"
    summary = report_of(repo, env, session)["run_summary"]
    assert summary["applied"] == "conflicts in: app.py, data.bin"
    assert "git restore" not in result.stdout + result.stderr
    undo = result.stderr.split("to undo the whole apply: ")[1].split()
    teddy.ok(repo, *undo[2:], "--force")  # the user's state, saved before applying
    assert (repo / "app.py").read_text() == "print('mine')\n"
    assert (repo / "data.bin").read_bytes() == b"\x00\x03mine"
    assert (repo / "README.md").read_text() == "# demo\n" and not (repo / "new.txt").exists()
    assert (repo / "notes.txt").read_text() == "a\nb, mine\nc\n"
    assert_fsck_clean(repo, env)
