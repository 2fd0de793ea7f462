"""Issue 14 item 4 and the scripted kill -9 of the fault suite: `plan` and `execute` killed
at each step (git_teddy/faultpoint.py), then the next command run. Each case checks that
git fsck is clean, that the user's tracked, untracked, ignored and staged bytes are intact,
that no action ran twice (an EXECUTE counts its runs in a file outside the repository),
that the session moves on (the next plan and execute work) and that no traceback shows."""

from pathlib import Path

import pytest

from git_teddy.errors import EXIT_TURN_FAILED, EXIT_USER_ERROR
from testing.commands import Teddy, git, run
from testing.plans import create, execute, plan_text
from testing.repos import commit_files
from testing.sessions import report_of, start


def assert_fsck_clean(repo: Path, env: dict) -> None:
    fsck = run(["git", "fsck", "--strict"], repo, env)
    assert fsck.returncode == 0, fsck.stderr


def users_files(repo: Path, env: dict) -> dict[str, str]:
    """Tracked and edited, untracked, ignored and staged: what teddy must leave alone."""
    commit_files(repo, env, {".gitignore": ".env\n"})
    (repo / "README.md").write_text("# my uncommitted edit\n")
    (repo / "notes.txt").write_text("my untracked notes\n")
    (repo / ".env").write_text("MY_IGNORED=1\n")
    (repo / "app.py").write_text("print('staged')\n")
    git(repo, env, "add", "app.py")
    return snapshot_of(repo, env)


def snapshot_of(repo: Path, env: dict) -> dict[str, str]:
    files = {name: (repo / name).read_text() for name in ("README.md", "notes.txt", ".env")}
    return {**files, "staged": git(repo, env, "diff", "--cached")}


def check_after(repo: Path, env: dict, before: dict[str, str], *outputs: str) -> None:
    assert snapshot_of(repo, env) == before
    assert_fsck_clean(repo, env)
    for output in outputs:
        assert "Traceback" not in output


def moves_on(repo: Path, teddy: Teddy, session: str, env: dict) -> None:
    """The session takes its next turn: plan and execute work."""
    plan = repo.parent / "next.md"
    plan.write_text(plan_text(create("next.txt", "next\n")))
    teddy.ok(repo, "plan", "-s", session, "-m", "next", "--from-file", str(plan))
    teddy.ok(repo, "execute", "-s", session, "-y")
    assert (repo / "next.txt").read_text() == "next\n"


EXECUTE_STEPS = [
    "execute.claimed",
    "execute.action.1",
    "execute.action.2",
    "execute.snapshot",
    "execute.applied",
    "execute.reported",
]


@pytest.mark.parametrize("step", EXECUTE_STEPS)
def test_execute_killed_at_a_step_resumes_and_runs_nothing_twice(
    step: str, repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    before = users_files(repo, env)
    runs = tmp_path / "runs"
    session = start(repo, teddy, execute(f'echo run >> "{runs}"'), create("new.txt", "new\n"))
    killed = teddy.killed_at(step, repo, "execute", "-y")
    if step == "execute.reported":
        again = teddy.exits(EXIT_USER_ERROR, repo, "execute", "-y")
        assert again.stderr.startswith("error: nothing to execute")
    else:
        again = teddy.exits(0, repo, "execute", "-y")
        if step != "execute.claimed":  # the killed run had done something: it says what
            assert "resuming turn 01, whose execute was interrupted" in again.stderr
    assert runs.read_text() == "run\n"  # exactly once, whatever the kill
    assert (repo / "new.txt").read_text() == "new\n"
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "SUCCESS"
    assert [log["status"] for log in report["action_logs"]] == ["SUCCESS", "SUCCESS"]
    check_after(repo, env, before, killed.stderr, again.stderr)
    moves_on(repo, teddy, session, env)
    assert runs.read_text() == "run\n"


def test_resuming_after_an_action_says_which_ran_and_reuses_their_logs(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    session = start(repo, teddy, execute(f'echo run >> "{runs}"; echo out'), create("n.txt", "n\n"))
    teddy.killed_at("execute.action.1", repo, "execute", "-y")
    again = teddy.exits(0, repo, "execute", "-y")
    assert "actions done: 1 (EXECUTE, SUCCESS); not run again, their logs are reused" in (
        again.stderr
    )
    assert "[1/2]" not in again.stdout and "[2/2]" in again.stdout  # not shown, not asked
    assert report_of(repo, env, session)["action_logs"][0]["details"]["stdout"] == "out\n"


def test_an_action_running_when_killed_is_not_run_again(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    """The EXECUTE kills git teddy itself mid-run: whatever it did, it is never run a second
    time; its turn is recorded as failed (exit 4) with the work before it kept."""
    before = users_files(repo, env)
    runs = tmp_path / "runs"
    command = f'echo run >> "{runs}"; kill -9 $PPID; sleep 5'
    session = start(repo, teddy, create("new.txt", "new\n"), execute(command))
    killed = teddy(repo, "execute", "-y")
    assert killed.returncode in (-9, 137), killed.stderr
    again = teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    assert "action 2 was running when it was killed" in again.stderr
    assert runs.read_text() == "run\n"
    logs = report_of(repo, env, session)["action_logs"]
    assert [log["status"] for log in logs] == ["SUCCESS", "FAILURE"]
    assert logs[1]["summary"].startswith("interrupted")
    assert (repo / "new.txt").read_text() == "new\n"  # the CREATE before it is kept
    check_after(repo, env, before, killed.stderr, again.stderr)
    moves_on(repo, teddy, session, env)


def test_an_unreadable_journal_runs_nothing(repo: Path, teddy: Teddy, env: dict) -> None:
    start(repo, teddy, create("new.txt", "new\n"))
    teddy.killed_at("execute.action.1", repo, "execute", "-y")
    journals = list((repo / ".git" / "teddy" / "sessions").glob("*/journal-01.json"))
    assert len(journals) == 1
    journals[0].write_text("{not json")
    refused = teddy.exits(EXIT_USER_ERROR, repo, "execute", "-y")
    assert refused.stderr.startswith("error: the journal of an interrupted execute")
    assert "hint: check what the plan's actions did" in refused.stderr
    assert not (repo / "new.txt").exists()
    journals[0].unlink()  # the way out the hint gives
    teddy.ok(repo, "execute", "-y")
    assert (repo / "new.txt").read_text() == "new\n"


PLAN_STEPS = ["plan.snapshot", "plan.replied", "plan.recorded"]


@pytest.mark.parametrize("step", PLAN_STEPS)
def test_plan_killed_at_a_step_leaves_the_session_usable(
    step: str, repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    before = users_files(repo, env)
    session = teddy.ok(repo, "new", "work").stdout.strip()
    plan = tmp_path / "plan.md"
    plan.write_text(plan_text(create("new.txt", "new\n")))
    args = ("plan", "-m", "work", "--from-file", str(plan))
    killed = teddy.killed_at(step, repo, *args)
    if step == "plan.recorded":
        again = teddy.exits(EXIT_USER_ERROR, repo, *args)  # recorded: execute it first
        assert "run `git teddy execute` first" in again.stderr
    else:
        again = teddy.ok(repo, *args)  # not recorded: planned again, as turn 01
    log = git(repo, env, "log", "--format=%s", f"teddy/{session}/main").splitlines()
    assert log.count("teddy: 01 plan: A plan") == 1
    teddy.ok(repo, "execute", "-y")
    assert (repo / "new.txt").read_text() == "new\n"
    check_after(repo, env, before, killed.stderr, again.stderr)
    moves_on(repo, teddy, session, env)
