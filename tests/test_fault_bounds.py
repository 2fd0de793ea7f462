"""Fault suite, issue 25 items 4 to 6: bounded whatever a command or a teammate does.

A command that leaves its process group but keeps its output open is stopped at the
timeout; a command's output of hundreds of megabytes leaves teddy's memory where a small
one does; session content read from a teammate (a YAML alias bomb, an oversized report)
is refused or cut within bounds of time and memory. Real repositories, the installed
executable; hostile session content written with git's plumbing, as a push would bring it.
"""

import os
import signal
import time
from pathlib import Path

from git_teddy.errors import EXIT_TURN_FAILED
from testing.commands import Teddy
from testing.memory import peak_rss
from testing.plans import execute
from testing.sessions import report_of, start

OUTPUT_MB = 200  # the 500 MB, smaller: the bound does not depend on the size
MEMORY_BOUND_MB = 100  # teddy's peak resident set, whatever the output's size


def test_a_child_outside_the_group_holding_the_output_cannot_outlast_the_timeout(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """`setsid CMD &` leaves the process group the timeout kills and keeps stdout open: the
    reader stops at the deadline all the same, and the report says why."""
    pid_file = repo.parent / "outsider.pid"
    command = f"echo begun; setsid sh -c 'echo $$ > {pid_file}; exec sleep 120' & sleep 100"
    session = start(repo, teddy, execute(command))
    env["TEDDY_EXECUTE_TIMEOUT"] = "2"
    began = time.monotonic()
    try:
        teddy.exits(EXIT_TURN_FAILED, repo, "execute", "-y")
        took = time.monotonic() - began
    finally:
        if pid_file.exists():  # the outsider this test started, by its own id
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
    assert took < 60, f"execute ran {took:.0f} s past a 2 s timeout"
    log = report_of(repo, env, session)["action_logs"][0]
    error = log["details"]["error"]
    assert log["status"] == "FAILURE" and "timed out after 2 s" in error
    assert "outside the command's process group" in error and "kept its output open" in error
    assert log["details"]["stdout"] == "begun\n"


def test_a_huge_output_leaves_teddys_memory_where_a_small_one_does(
    repo: Path, teddy: Teddy, env: dict
) -> None:
    """200 MB of output (`yes`, then a line stating an error, then more): teddy's peak
    memory stays within the bound, and the report keeps the head, the error and the tail,
    the cuts marked."""
    size = OUTPUT_MB * 1024 * 1024
    command = (
        f"yes | head -c {size // 2}; echo 'ValueError: the cause'; "
        f"yes tail | head -c {size // 2}; echo the end"
    )
    session = start(repo, teddy, execute(command))
    code, peak_mb, output = peak_rss(["git", "teddy", "execute", "-y"], repo, env)
    assert code == 0, output
    assert peak_mb < MEMORY_BOUND_MB, f"teddy peaked at {peak_mb:.0f} MiB for {OUTPUT_MB} MB"
    details = report_of(repo, env, session)["action_logs"][0]["details"]
    stdout = details["stdout"]
    assert len(stdout.encode()) < 2 * 20_000
    assert stdout.startswith("y\ny\n") and stdout.endswith("tail\nthe end\n")
    assert "ValueError: the cause\n" in stdout and "lines cut ...]" in stdout
