"""The fault points the fault suite kills commands at (git_teddy/faultpoint.py)."""

import subprocess
import sys

from git_teddy.faultpoint import KILL_AT

PROGRAM = "from git_teddy.faultpoint import reached\nreached('a.step')\nprint('went on')\n"


def run_with(step: str | None) -> subprocess.CompletedProcess[str]:
    env = {KILL_AT: step} if step else {}
    return subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=60
    )


def test_an_armed_step_kills_the_process_there() -> None:
    killed = run_with("a.step")
    assert killed.returncode == -9
    assert "went on" not in killed.stdout


def test_other_steps_and_no_setting_go_on() -> None:
    for step in (None, "another.step", "a.step.2"):
        result = run_with(step)
        assert result.returncode == 0, result.stderr
        assert result.stdout == "went on\n"
