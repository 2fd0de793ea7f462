"""Running git, `git teddy` and python as subprocesses in a given environment (the sealed
one, see testing/sealed.py), the way a user's shell runs them."""

import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from git_teddy.faultpoint import KILL_AT
from testing.forkserver import run_warm, servable
from testing.sealed import BIN_DIR


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def run(
    args: list[str], cwd: Path, env: dict[str, str], input: str | None = None, check: bool = False
) -> Result:
    proc = subprocess.run(
        args, cwd=cwd, env=env, input=input, capture_output=True, text=True, timeout=120
    )
    result = Result(proc.returncode, proc.stdout, proc.stderr)
    if check and proc.returncode != 0:
        raise AssertionError(f"{args} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return result


def git(repo: Path, env: dict[str, str], *args: str) -> str:
    return run(["git", *args], cwd=repo, env=env, check=True).stdout


def teddy_executable() -> str:
    """The `git-teddy` installed beside the python running the tests."""
    exe = shutil.which("git-teddy", path=str(BIN_DIR))
    assert exe, "git-teddy is not installed in the test environment (run `make test`)"
    return exe


class Teddy:
    """Runs `git teddy ...` (through git, as a user would) in a given folder."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def __call__(self, cwd: Path, *args: str, input: str | None = None) -> Result:
        exe = teddy_executable()
        if servable(self.env, exe):  # forked from a warm process (testing/forkserver.py)
            return Result(*run_warm(exe, list(args), cwd, self.env, input))
        return run(["git", "teddy", *args], cwd=cwd, env=self.env, input=input)

    def exits(self, code: int, cwd: Path, *args: str, input: str | None = None) -> Result:
        """Run and check the exit status (e.g. `execute`'s 4 when an action failed)."""
        result = self(cwd, *args, input=input)
        assert result.returncode == code, (
            f"git teddy {args} exited {result.returncode}, not {code}:\n"
            f"{result.stdout}\n{result.stderr}"
        )
        return result

    def killed_at(self, step: str, cwd: Path, *args: str, input: str | None = None) -> Result:
        """Run with the fault point `step` armed (git_teddy/faultpoint.py) and check that the
        command was killed there, as `kill -9` would kill it (git reports the signal)."""
        env = {**self.env, KILL_AT: step}
        result = run(["git", "teddy", *args], cwd=cwd, env=env, input=input)
        assert result.returncode in (-9, 128 + 9), (
            f"git teddy {args} was not killed at {step} (exit {result.returncode}):\n"
            f"{result.stdout}\n{result.stderr}"
        )
        return result

    def ok(self, cwd: Path, *args: str, input: str | None = None) -> Result:
        result = self(cwd, *args, input=input)
        assert result.returncode == 0, f"git teddy {args} failed:\n{result.stdout}\n{result.stderr}"
        return result


def imported_modules(repo: Path, env: dict[str, str], *args: str) -> tuple[str, set[str]]:
    """`git teddy ARGS` run as the installed command runs it, under `python -X importtime`:
    its output and the full names of the modules it imported (start-up cost tests)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "git_teddy", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    modules = {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}
    return proc.stdout, modules


def in_background(
    teddy_exe: str, repo: Path, env: dict[str, str], *args: str
) -> "subprocess.Popen[str]":
    """`git-teddy ARGS` started and left running, its output kept for `communicate`."""
    return subprocess.Popen(
        [teddy_exe, *args], cwd=repo, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


@contextmanager
def serving(repo: Path, env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """`git teddy serve --port 0` while the block runs: (its base URL, its port). Stopped
    with Ctrl-C after, and it must stop cleanly: exit 0, no traceback."""
    process = in_background(teddy_executable(), repo, env, "serve", "--port", "0")
    assert process.stdout is not None and process.stderr is not None
    try:
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", process.stdout.readline())
        assert match, process.stderr.read()
        yield match.group(0), int(match.group(1))
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=240)
    assert process.returncode == 0 and "Traceback" not in err, err
