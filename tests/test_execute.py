"""`git teddy plan --from-file` and `git teddy execute`, end to end in real repositories."""

import json
import signal
import subprocess
from pathlib import Path

import pexpect
import yaml

from git_teddy.errors import EXIT_CONFLICTS, EXIT_TURN_FAILED
from testing.commands import Teddy, git
from testing.plans import create, edit, execute, plan_text, read
from testing.sessions import report_of, start
from testing.waits import EVENT_TIMEOUT, alive, wait_for


def test_plan_then_execute_everything(repo: Path, teddy: Teddy, env: dict) -> None:
    head = git(repo, env, "rev-parse", "HEAD")
    session = start(
        repo,
        teddy,
        create("docs/notes.md", "# Notes\n"),
        edit("app.py", "print('hello')", "print('hello, world')"),
        execute("python3 -c \"print('ran')\" && echo made > made.txt"),
        read("README.md"),
        memos="[+] Greet politely. # a convention",
    )
    result = teddy.ok(repo, "execute", "-y")
    assert "turn 01: SUCCESS" in result.stdout

    assert git(repo, env, "rev-parse", "HEAD") == head
    assert git(repo, env, "status", "--porcelain").splitlines() == [
        " M app.py",
        "?? .teddy/",
        "?? docs/",
        "?? made.txt",
    ]
    assert (repo / "app.py").read_text() == "print('hello, world')\n"
    assert yaml.safe_load((repo / ".teddy" / "memos.yaml").read_text()) == ["Greet politely."]

    report = report_of(repo, env, session)
    summary = report["run_summary"]
    assert summary["status"] == "SUCCESS" and summary["applied"] is True
    assert set(summary) == {
        "status",
        "start_time",
        "end_time",
        "base_snapshot",
        "snapshot",
        "applied",
    }
    assert report["memos"] == {"proposed": ["[+] Greet politely."], "decision": "approved"}
    logs = report["action_logs"]
    assert [(a["index"], a["action_type"], a["approval"], a["status"]) for a in logs] == [
        (1, "CREATE", "auto", "SUCCESS"),
        (2, "EDIT", "auto", "SUCCESS"),
        (3, "EXECUTE", "auto", "SUCCESS"),
        (4, "READ", "auto", "SUCCESS"),
    ]
    assert logs[2]["details"]["return_code"] == 0 and logs[2]["details"]["stdout"] == "ran\n"
    assert [a["summary"] for a in logs[1:3]] == ["edited app.py (1 change(s))", "exit code 0"]
    assert set(logs[0]) == {
        "index",
        "action_type",
        "description",
        "params",
        "approval",
        "reason",
        "status",
        "summary",
        "details",
    }

    snapshot = summary["snapshot"]
    assert git(repo, env, "show", f"{snapshot}:made.txt") == "made\n"
    assert git(repo, env, "rev-parse", f"{snapshot}^").strip() == summary["base_snapshot"]
    commits = json.loads(teddy.ok(repo, "log", "--json").stdout)
    assert [(c["turn"], c["phase"], c["status"]) for c in commits] == [
        ("01", "plan", "planned"),
        ("01", "report", "success"),
    ]
    assert commits[1]["snapshot"] == snapshot
    # The snapshot survives gc: a ref keeps it.
    git(repo, env, "gc", "-q", "--prune=now")
    git(repo, env, "cat-file", "-e", snapshot)


def test_interactive_rejection_with_reason(repo: Path, teddy: Teddy, env: dict) -> None:
    session = start(repo, teddy, create("one.txt", "1\n"), create("two.txt", "2\n"))
    child = pexpect.spawn(
        "git", ["teddy", "execute"], cwd=str(repo), env=env, encoding="utf-8", timeout=EVENT_TIMEOUT
    )
    child.expect(r"\[1/2\] CREATE one.txt")
    child.expect(r"\[q\]uit")
    child.sendline("d")
    child.expect("1")
    child.expect(r"\[q\]uit")
    child.sendline("n")
    child.expect("Reason")
    child.sendline("keep the tree small")
    child.expect(r"\[2/2\] CREATE two.txt")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert not (repo / "one.txt").exists()
    assert (repo / "two.txt").read_text() == "2\n"
    logs = report_of(repo, env, session)["action_logs"]
    assert logs[0]["approval"] == "rejected" and logs[0]["status"] == "REJECTED"
    assert logs[0]["reason"] == "keep the tree small"
    assert logs[1]["approval"] == "approved" and logs[1]["status"] == "SUCCESS"


def test_quit_skips_the_rest_and_still_reports(repo: Path, teddy: Teddy, env: dict) -> None:
    session = start(repo, teddy, create("one.txt", "1\n"), create("two.txt", "2\n"))
    child = pexpect.spawn(
        "git", ["teddy", "execute"], cwd=str(repo), env=env, encoding="utf-8", timeout=EVENT_TIMEOUT
    )
    child.expect(r"\[q\]uit")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "ABORTED"
    assert [a["status"] for a in report["action_logs"]] == ["SKIPPED", "SKIPPED"]


def test_invalid_paths_are_refused_by_plan(repo: Path, teddy: Teddy) -> None:
    teddy.ok(repo, "new", "paths")
    for bad in ("../outside.txt", "/etc/passwd", ".git/config"):
        plan_file = repo.parent / "bad.md"
        plan_file.write_text(plan_text(create(bad, "x\n")))
        result = teddy(repo, "plan", "-m", "bad", "--from-file", str(plan_file))
        assert result.returncode == 1, bad
        assert result.stderr.startswith("error: ") and "hint: " in result.stderr
    assert json.loads(teddy.ok(repo, "list", "--json").stdout)[0]["turns"] == 0


def test_a_plan_that_cannot_be_read_is_a_user_error(repo: Path, teddy: Teddy, env: dict) -> None:
    teddy.ok(repo, "new", "unreadable")
    missing = repo.parent / "missing.md"
    result = teddy(repo, "plan", "-m", "x", "--from-file", str(missing))
    assert result.returncode == 1 and result.stderr.startswith(f"error: cannot read {missing}")
    latin1 = plan_text(create("a.txt", "caf\xe9\n")).encode("latin-1")
    (repo.parent / "latin1.md").write_bytes(latin1)
    result = teddy(repo, "plan", "-m", "x", "--from-file", str(repo.parent / "latin1.md"))
    assert result.returncode == 1 and "latin1.md is not UTF-8 text" in result.stderr
    piped = subprocess.run(
        ["git", "teddy", "plan", "-m", "x", "--from-file", "-"],
        cwd=repo,
        env=env,
        input=latin1,
        capture_output=True,
        check=False,
    )
    assert piped.returncode == 1
    assert piped.stderr.decode().startswith("error: stdin is not UTF-8 text")
    assert "hint: save the plan as UTF-8" in piped.stderr.decode()


def test_symlink_escape_is_refused(repo: Path, teddy: Teddy, env: dict, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (repo / "escape").symlink_to(outside)
    git(repo, env, "add", "escape")
    git(repo, env, "commit", "-qm", "a symlink out")
    session = start(repo, teddy, create("escape/evil.txt", "x\n"), create("after.txt", "y\n"))
    teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    assert list(outside.iterdir()) == []
    report = report_of(repo, env, session)
    assert report["run_summary"]["status"] == "FAILURE"
    first, second = report["action_logs"]
    assert first["status"] == "FAILURE" and "symlink" in first["details"]["error"]
    assert second["status"] == "SKIPPED"


def test_create_does_not_overwrite(repo: Path, teddy: Teddy, env: dict) -> None:
    session = start(repo, teddy, create("app.py", "replaced\n"))
    teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    assert (repo / "app.py").read_text() == "print('hello')\n"
    log = report_of(repo, env, session)["action_logs"][0]
    assert log["status"] == "FAILURE" and "already exists" in log["details"]["error"]


def test_create_overwrites_when_the_plan_says_so(repo: Path, teddy: Teddy, env: dict) -> None:
    replace = create("app.py", "replaced\n").replace(
        "- **Description:**", "- **Overwrite:** yes\n- **Description:**"
    )
    session = start(repo, teddy, replace)
    teddy.ok(repo, "execute", "-y")
    assert (repo / "app.py").read_text() == "replaced\n"
    assert report_of(repo, env, session)["action_logs"][0]["status"] == "SUCCESS"


def test_edit_without_match_reports_closest_region(repo: Path, teddy: Teddy, env: dict) -> None:
    (repo / "app.py").write_text(
        "import sys\n\ndef main():\n    print('hello there')\n    return 0\n"
    )
    git(repo, env, "commit", "-qam", "longer app")
    session = start(repo, teddy, edit("app.py", "def main():\n    print('hello world')", "x"))
    teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    log = report_of(repo, env, session)["action_logs"][0]
    assert log["status"] == "FAILURE"
    assert log["details"]["closest_match"] == {
        "line": 3,
        "text": "def main():\n    print('hello there')",
    }


def test_edit_tolerates_whitespace_slips(repo: Path, teddy: Teddy, env: dict) -> None:
    (repo / "app.py").write_text("def main():\n    print('hi')   \n")
    git(repo, env, "commit", "-qam", "trailing spaces")
    start(
        repo, teddy, edit("app.py", "def main():\n  print('hi')", "def main():\n    print('bye')")
    )
    teddy.ok(repo, "execute", "-y")
    assert (repo / "app.py").read_text() == "def main():\n    print('bye')\n"


def test_execute_timeout(repo: Path, teddy: Teddy, env: dict) -> None:
    session = start(repo, teddy, execute("echo begun; sleep 30"))
    env["TEDDY_EXECUTE_TIMEOUT"] = "1"
    teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")  # not 30 s: `stdout` below says so
    log = report_of(repo, env, session)["action_logs"][0]
    assert log["status"] == "FAILURE" and "timed out after 1 s" in log["details"]["error"]
    assert log["details"]["stdout"] == "begun\n"


def test_refusals_without_terminal_and_with_nothing_to_do(repo: Path, teddy: Teddy) -> None:
    start(repo, teddy, create("x.txt", "x\n"))
    result = teddy(repo, "execute")
    assert result.returncode == 1
    assert result.stderr.startswith("error: execute asks for approvals, but there is no terminal")
    teddy.ok(repo, "execute", "-y")
    result = teddy(repo, "execute", "-y")
    assert result.returncode == 1
    assert result.stderr.startswith("error: nothing to execute")
    # and a second plan is refused while one is pending
    plan_file = repo.parent / "plan.md"
    teddy.ok(repo, "plan", "-m", "again", "--from-file", str(plan_file))
    result = teddy(repo, "plan", "-m", "and again", "--from-file", str(plan_file))
    assert result.returncode == 1
    assert "has a plan that has not been executed yet" in result.stderr


def test_user_edits_are_merged(repo: Path, teddy: Teddy, env: dict) -> None:
    start(repo, teddy, edit("app.py", "print('hello')", "print('hello, world')"))
    (repo / "README.md").write_text("# demo, edited by hand\n")
    (repo / "mine.txt").write_text("my own file\n")
    result = teddy.ok(repo, "execute", "-y")
    # Edits of files the turn does not write are left alone, not merged (issue 31 item 2:
    # execute reads only the paths it writes); tests/test_execute_saves_paths.py merges.
    assert "applied: 1 file(s) changed in your working tree" in result.stdout
    assert (repo / "app.py").read_text() == "print('hello, world')\n"
    assert (repo / "README.md").read_text() == "# demo, edited by hand\n"
    assert (repo / "mine.txt").read_text() == "my own file\n"


def test_conflicting_user_edits_get_conflict_markers(repo: Path, teddy: Teddy, env: dict) -> None:
    session = start(repo, teddy, edit("app.py", "print('hello')", "print('hello, world')"))
    (repo / "app.py").write_text("print('my version')\n")
    result = teddy.exits(EXIT_CONFLICTS, repo, "execute", "-y")
    assert "conflicts (markers: yours / turn 01) in: app.py" in result.stdout
    assert (repo / "app.py").read_text() == (
        "<<<<<<< yours\nprint('my version')\n=======\nprint('hello, world')\n>>>>>>> turn 01\n"
    )
    summary = report_of(repo, env, session)["run_summary"]
    assert summary["applied"] == "conflicts in: app.py"
    assert git(repo, env, "show", f"{summary['snapshot']}:app.py") == "print('hello, world')\n"


def test_killed_execute_recovers_with_nothing_lost(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path, teddy_exe: str
) -> None:
    marker, pidfile = tmp_path / "started", tmp_path / "sleeper.pid"
    command = (
        f'if [ -e "{marker}" ]; then echo second run; '
        f'else echo $$ > "{pidfile}"; touch "{marker}"; sleep 60; fi'
    )
    session = start(repo, teddy, create("new.txt", "new\n"), execute(command))
    (repo / "README.md").write_text("# my uncommitted edit\n")
    status_before = git(repo, env, "status", "--porcelain")
    proc = subprocess.Popen(
        [teddy_exe, "execute", "-y"],
        cwd=repo,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(), "the EXECUTE action")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    sleeper = int(pidfile.read_text())

    assert git(repo, env, "status", "--porcelain") == status_before
    assert (repo / "README.md").read_text() == "# my uncommitted edit\n"
    tip = git(
        repo,
        env,
        "log",
        "-1",
        "--format=%(trailers:key=Teddy-Phase,valueonly)",
        f"teddy/{session}/main",
    )
    assert tip.strip() == "plan"

    # Issue 14 item 4: the journal resumes the run; the command that was running is never
    # run a second time (its turn fails, "interrupted"), the CREATE before it is kept.
    result = teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
    assert "cleaned up a scratch worktree left behind by an interrupted run" in result.stdout
    assert "resuming turn 01" in result.stderr and "not run again" in result.stderr
    wait_for(lambda: not alive(sleeper), "the orphaned command to be stopped by the recovery")
    assert (repo / "new.txt").read_text() == "new\n"
    assert (repo / "README.md").read_text() == "# my uncommitted edit\n"
    logs = report_of(repo, env, session)["action_logs"]
    assert logs[0]["status"] == "SUCCESS"
    assert logs[1]["status"] == "FAILURE" and logs[1]["summary"].startswith("interrupted")
    assert logs[1]["details"] == {}  # no output: it did not run again


def test_git_dir_in_the_environment_never_reaches_the_worktree(
    repo: Path, teddy: Teddy, env: dict, tmp_path: Path
) -> None:
    (repo / "README.md").write_text("# my uncommitted edit\n")
    env.update(GIT_DIR=str(repo / ".git"), GIT_WORK_TREE=str(repo))
    session = start(repo, teddy, create("new.txt", "new\n"), execute("git status --short"))
    teddy.ok(tmp_path, "execute", "-y")
    assert (repo / "README.md").read_text() == "# my uncommitted edit\n"
    assert (repo / "new.txt").read_text() == "new\n"
    stdout = report_of(repo, env, session)["action_logs"][1]["details"]["stdout"]
    assert stdout == "?? new.txt\n"  # git in the command saw the worktree, not the checkout
