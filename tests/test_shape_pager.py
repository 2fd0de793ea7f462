"""Issue 13, output conventions: long output goes through a pager chosen as git chooses it
(GIT_PAGER, pager.teddy, core.pager, PAGER, less; `cat` or empty: none), only when stdout is a
terminal, never with --no-pager / `git --no-pager` / pager.teddy=false, and not twice when git
already started one. Each case runs the real `git teddy` on a real pseudo-terminal, with a
"pager" that records what it was given."""

from pathlib import Path

import pytest

from testing.commands import Teddy, git, run
from testing.terminal import on_terminal

ESC = "\x1b["


def recording_pager(folder: Path, name: str) -> tuple[str, Path]:
    """A shell command that saves its input (and the LESS it was given) to a file."""
    record = folder / f"{name}.txt"
    return f'{{ echo "LESS=$LESS"; cat; }} > "{record}"', record


@pytest.fixture
def session_repo(repo: Path, teddy: Teddy) -> Path:
    teddy.ok(repo, "new", "work")
    return repo


def test_show_goes_through_the_pager_on_a_terminal(
    session_repo: Path, env: dict, tmp_path: Path
) -> None:
    pager, record = recording_pager(tmp_path, "paged")
    code, shown = on_terminal(["git", "teddy", "show"], session_repo, {**env, "GIT_PAGER": pager})
    assert code == 0, shown
    paged = record.read_text()
    assert "Session log of" in paged and "Session log of" not in shown
    assert paged.startswith("LESS=FRX\n")  # as git sets it, so short output is not paged
    assert ESC in paged  # colour is kept for the pager, as git's auto does
    git(session_repo, env, "fsck", "--strict")


@pytest.mark.parametrize(
    ("git_options", "teddy_options", "extra_env"),
    [
        ([], ["--no-pager"], {}),
        ([], ["-P"], {}),
        (["--no-pager"], [], {}),  # git sets GIT_PAGER=cat for its external commands
        (["-c", "pager.teddy=false"], [], {}),
        ([], [], {"GIT_PAGER_IN_USE": "true"}),  # git already started one
    ],
)
def test_no_pager_when_asked_or_already_paged(
    session_repo: Path,
    env: dict,
    tmp_path: Path,
    git_options: list[str],
    teddy_options: list[str],
    extra_env: dict,
) -> None:
    pager, record = recording_pager(tmp_path, "paged")
    code, shown = on_terminal(
        ["git", *git_options, "teddy", *teddy_options, "show"],
        session_repo,
        {**env, "GIT_PAGER": pager, **extra_env},
    )
    assert code == 0, shown
    assert "Session log of" in shown
    assert not record.exists()


def test_the_pager_is_chosen_in_git_order(session_repo: Path, env: dict, tmp_path: Path) -> None:
    """pager.teddy (a command) > core.pager > PAGER; GIT_PAGER wins over all of them."""
    teddy_pager, teddy_record = recording_pager(tmp_path, "teddy")
    core_pager, core_record = recording_pager(tmp_path, "core")
    env_pager, env_record = recording_pager(tmp_path, "env")
    git(session_repo, env, "config", "core.pager", core_pager)
    with_pager = {**env, "PAGER": env_pager}
    code, shown = on_terminal(["git", "teddy", "show"], session_repo, with_pager)
    assert code == 0, shown
    assert core_record.exists() and not env_record.exists()
    core_record.unlink()
    git(session_repo, env, "config", "pager.teddy", teddy_pager)
    # pager.teddy names a command: git itself pages `git teddy` with it, and we do not again.
    code, shown = on_terminal(["git", "teddy", "show"], session_repo, with_pager)
    assert code == 0, shown
    assert teddy_record.exists() and not core_record.exists()
    teddy_record.unlink()
    git(session_repo, env, "config", "--unset", "pager.teddy")
    git(session_repo, env, "config", "core.pager", "cat")  # cat: no pager at all
    code, shown = on_terminal(["git", "teddy", "show"], session_repo, with_pager)
    assert code == 0 and "Session log of" in shown
    assert not (core_record.exists() or env_record.exists() or teddy_record.exists())
    git(session_repo, env, "fsck", "--strict")


def test_piped_output_is_never_paged(session_repo: Path, env: dict, tmp_path: Path) -> None:
    pager, record = recording_pager(tmp_path, "paged")
    result = run(["git", "teddy", "show"], session_repo, {**env, "GIT_PAGER": pager})
    assert result.returncode == 0 and "Session log of" in result.stdout
    assert not record.exists()


def test_bare_color_means_always(session_repo: Path, env: dict) -> None:
    result = run(["git", "teddy", "--color", "show"], session_repo, env)
    assert result.returncode == 0, result.stderr
    assert ESC in result.stdout
    result = run(["git", "teddy", "show", "--color"], session_repo, env)
    assert result.returncode == 0 and ESC in result.stdout


def test_a_pager_that_is_not_installed_does_not_swallow_the_output(
    session_repo: Path, env: dict
) -> None:
    pager = {**env, "GIT_PAGER": "no-such-pager-anywhere"}
    code, shown = on_terminal(["git", "teddy", "show"], session_repo, pager)
    assert code == 0 and "Session log of" in shown
