"""Issue 14 item 16: `execute` tells how the turn went by its exit status, git-style, so
scripts and the shell prompt can see it: 0 done, 4 an action failed, 5 the user quit at an
approval, 6 the result could not be applied, 7 applied with conflicts left, 1 refused."""

from pathlib import Path

from git_teddy.errors import (
    EXIT_CONFLICTS,
    EXIT_TURN_FAILED,
    EXIT_TURN_STOPPED,
    EXIT_USER_ERROR,
)
from testing.commands import Teddy, git, run
from testing.plans import create, edit, execute
from testing.sessions import report_of, start
from testing.terminal import on_terminal


def assert_fsck_clean(repo: Path, env: dict) -> None:
    fsck = run(["git", "fsck", "--strict"], repo, env)
    assert fsck.returncode == 0, fsck.stderr


def test_a_turn_that_went_as_planned_exits_0(repo: Path, teddy: Teddy, env: dict) -> None:
    start(repo, teddy, create("new.txt", "new\n"))
    result = teddy.exits(0, repo, "execute", "-y")
    assert "SUCCESS" in result.stdout
    assert_fsck_clean(repo, env)


def test_a_failed_action_exits_4_and_the_turn_is_recorded(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    session = start(repo, teddy, create("new.txt", "new\n"), execute("exit 7"))
    result = teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    assert "FAILURE" in result.stdout and "Traceback" not in result.stderr
    assert report_of(repo, env, session)["run_summary"]["status"] == "FAILURE"
    # recorded: the session moves on, nothing is pending any more
    again = teddy.exits(EXIT_USER_ERROR, repo, "execute", "-y")
    assert again.stderr.startswith("error: nothing to execute") and "\nhint: " in again.stderr
    assert_fsck_clean(repo, env)


def test_quitting_at_an_approval_exits_5(repo: Path, teddy: Teddy, env: dict) -> None:
    session = start(repo, teddy, create("one.txt", "1\n"), create("two.txt", "2\n"))
    code, shown = on_terminal(["git", "teddy", "execute"], repo, env, "q\n")
    assert code == EXIT_TURN_STOPPED, shown
    assert report_of(repo, env, session)["run_summary"]["status"] == "ABORTED"
    assert not (repo / "one.txt").exists() and not (repo / "two.txt").exists()
    assert_fsck_clean(repo, env)


def test_a_result_that_conflicts_with_your_edits_exits_7(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    start(repo, teddy, edit("app.py", "print('hello')", "print('model')"))
    (repo / "app.py").write_text("print('mine')\n")
    result = teddy.exits(EXIT_CONFLICTS, repo, "execute", "-y")
    assert "conflicts (markers: yours / turn 01) in: app.py" in result.stdout
    assert "<<<<<<< yours\nprint('mine')\n" in (repo / "app.py").read_text()
    assert git(repo, env, "status", "--porcelain") == " M app.py\n"
    assert_fsck_clean(repo, env)
