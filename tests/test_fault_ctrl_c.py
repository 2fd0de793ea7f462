"""Fault suite (issue 25, item 9): Ctrl-C during `execute -y` is recorded exactly. The
actions that finished are finished (kept, never run again); the one Ctrl-C stopped and the
rest run on the next `execute`, from the state the finished ones left. The real executable,
SIGINT sent to its process group as a terminal's Ctrl-C is."""

import os
import signal
from pathlib import Path

from testing.commands import Teddy, in_background
from testing.plans import execute
from testing.sessions import report_of, start
from testing.waits import EVENT_TIMEOUT, wait_for


def test_ctrl_c_during_a_command_keeps_what_finished_and_the_rest_resumes(
    repo: Path, teddy: Teddy, teddy_exe: str, env: dict[str, str], tmp_path: Path
) -> None:
    started, go = tmp_path / "started", tmp_path / "go"
    blocking = f"test -e {go} || {{ touch {started}; sleep 600; }}; echo two > two.txt"
    session = start(repo, teddy, execute("echo one >> one.txt"), execute(blocking))

    running = in_background(teddy_exe, repo, env, "execute", "-y")
    wait_for(started.exists, "the second command to start")
    os.kill(running.pid, signal.SIGINT)  # Ctrl-C: the terminal signals teddy, not the command
    _, err = running.communicate(timeout=EVENT_TIMEOUT)
    assert running.returncode == 130, err
    assert "Traceback" not in err

    go.touch()
    teddy.ok(repo, "execute", "-y")
    assert (repo / "one.txt").read_text() == "one\n"  # run once, never again
    assert (repo / "two.txt").read_text() == "two\n"
    report = report_of(repo, env, session)
    assert [log["status"] for log in report["action_logs"]] == ["SUCCESS", "SUCCESS"]
    assert "interrupted" not in str(report["action_logs"])
