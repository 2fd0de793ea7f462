"""Hermetic test environment: real git repositories in temporary folders, a sealed git
configuration, fixed author and dates (so hashes are stable), and the installed `git-teddy`
executable run as a subprocess, the way `git teddy` runs it."""

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

# Fixtures: openai_server and anthropic_server (model APIs), server (web pages, search).
pytest_plugins = ["llm_servers", "web_server"]

FIXED_DATE = "2026-11-26T12:00:00+00:00"
BIN_DIR = Path(sys.executable).parent


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def sealed_env(home: Path) -> dict[str, str]:
    """An environment with no user or system git config and fixed identities and dates."""
    env = {
        "HOME": str(home),
        "PATH": f"{BIN_DIR}{os.pathsep}{os.environ.get('PATH', '')}",
        "LANG": "C.UTF-8",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_AUTHOR_NAME": "Test Author",
        "GIT_AUTHOR_EMAIL": "author@example.com",
        "GIT_COMMITTER_NAME": "Test Author",
        "GIT_COMMITTER_EMAIL": "author@example.com",
        "GIT_AUTHOR_DATE": FIXED_DATE,
        "GIT_COMMITTER_DATE": FIXED_DATE,
        # No network, as on CI: tiktoken cannot download and falls back to the offline
        # encoding, so token counts are the same everywhere; local servers stay reachable.
        "TIKTOKEN_CACHE_DIR": str(home / "tiktoken-cache"),
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    return env


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return sealed_env(home)


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


@pytest.fixture
def teddy_exe() -> str:
    exe = shutil.which("git-teddy", path=str(BIN_DIR))
    assert exe, "git-teddy is not installed in the test environment (run `make test`)"
    return exe


@pytest.fixture
def teddy(env: dict[str, str], teddy_exe: str) -> Iterator["Teddy"]:
    yield Teddy(env)


class Teddy:
    """Runs `git teddy ...` (through git, as a user would) in a given folder."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env

    def __call__(self, cwd: Path, *args: str, input: str | None = None) -> Result:
        return run(["git", "teddy", *args], cwd=cwd, env=self.env, input=input)

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


@pytest.fixture
def repo(tmp_path: Path, env: dict[str, str]) -> Path:
    """A repository with one commit of two files."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, env, "init", "-q")
    (path / "README.md").write_text("# demo\n")
    (path / "app.py").write_text("print('hello')\n")
    git(path, env, "add", ".")
    git(path, env, "commit", "-qm", "initial")
    return path
