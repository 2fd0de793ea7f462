"""The warm harness (testing/forkserver.py) is faithful: a command forked from the warm
server gives the exit code, output and repository the installed executable gives, and a
command it cannot serve as the executable would (another git on PATH, a fault point) runs
the executable itself."""

import shutil
import subprocess
from pathlib import Path

import pytest

from testing.commands import Result, Teddy, run, teddy_executable
from testing.forkserver import run_warm, servable
from testing.repos import commit_files

COMMANDS = [
    ["--version"],
    ["new", "fidelity"],
    ["status"],
    ["list", "--json"],
    ["show", "no-such-session"],
    ["plan", "--bogus-option"],
    ["config"],
]


def test_commands_give_what_the_executable_gives(
    tmp_path: Path, repo: Path, env: dict[str, str]
) -> None:
    assert servable(env, teddy_executable())
    twin = tmp_path / "twin"
    subprocess.run(["cp", "-a", str(repo), str(twin)], check=True)
    for args in COMMANDS:
        real = run(["git", "teddy", *args], cwd=repo, env=env)
        warm = Result(*run_warm(teddy_executable(), args, twin, env, None))
        assert (warm.returncode, warm.stdout, warm.stderr) == (
            real.returncode,
            real.stdout.replace(str(repo), str(twin)),
            real.stderr.replace(str(repo), str(twin)),
        ), args
    refs = ["git", "for-each-ref", "--format=%(refname) %(objectname)"]
    assert run(refs, twin, env).stdout == run(refs, repo, env).stdout


def test_standard_input_reaches_the_command(repo: Path, env: dict[str, str]) -> None:
    commit_files(repo, env, {"notes.txt": "one\n"})
    args = ["validate", "-"]
    real = run(["git", "teddy", *args], cwd=repo, env=env, input="# not a plan\n")
    warm = Result(*run_warm(teddy_executable(), args, repo, env, "# not a plan\n"))
    assert real.returncode != 0
    assert (warm.returncode, warm.stdout, warm.stderr) == (
        real.returncode,
        real.stdout,
        real.stderr,
    )


@pytest.mark.parametrize("reason", ["another-git", "fault-point", "locale"])
def test_what_it_cannot_serve_runs_the_executable(
    tmp_path: Path, env: dict[str, str], reason: str
) -> None:
    other = dict(env)
    if reason == "another-git":
        folder = tmp_path / "bin"
        folder.mkdir()
        (folder / "git").write_text(f'#!/bin/sh\nexec {shutil.which("git")} "$@"\n')
        (folder / "git").chmod(0o755)
        other["PATH"] = f"{folder}:{env['PATH']}"
    elif reason == "fault-point":
        other["TEDDY_TEST_KILL_AT"] = "never-reached"
    else:
        other["LANG"] = "C"
    assert servable(env, teddy_executable())
    assert not servable(other, teddy_executable())
    assert Teddy(other)(tmp_path, "--version").returncode == 0
