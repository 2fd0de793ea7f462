"""The pager for long output, chosen and started as git starts its own (`page_output`).

Which pager, first that says something wins (git's order): `GIT_PAGER`, git config
`pager.teddy` when it names a command, `core.pager`, `PAGER`, then `less`; an empty value or
`cat` means none. No pager when stdout is not a terminal, with `--no-pager` (or
`git --no-pager teddy`, which sets GIT_PAGER=cat), with `pager.teddy=false`, or when git
already started one (`git -p teddy`, or `pager.teddy=true`: git sets GIT_PAGER_IN_USE).
Like git, `LESS=FRX` and `LV=-c` are set unless the user set them, so output that fits on
one screen is printed as it is, and colours pass through.

The pager is started once, before the command prints anything; stdout (and stderr when it
is a terminal) are handed to it, and at exit git-teddy waits for the user to quit it.
"""

import atexit
import contextlib
import os
import subprocess
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

IN_USE = "GIT_PAGER_IN_USE"  # git's own name: git and git-teddy both read it
FLAG = "git_teddy.no_pager"  # in click's ctx.meta, set by the group's --no-pager
_FALSE = ("false", "no", "off", "0")
_TRUE = ("true", "yes", "on", "1", "")


def _config(key: str) -> str | None:
    """The last value of a `pager.*`/`core.*` key in git config (git's last-one-wins)."""
    from git_teddy.gitstore.plumbing import read_config

    values = read_config(None, key.partition(".")[0]).get(key, [])
    return values[-1] if values else None


def pager_command() -> str | None:
    """The pager to start for this run, or None for none."""
    if os.environ.get(IN_USE) or not sys.stdout.isatty() or _no_pager_flag():
        return None
    environ_pager = os.environ.get("GIT_PAGER")
    teddy_pager = _config("pager.teddy")
    if environ_pager is None and teddy_pager is not None:
        if teddy_pager.strip().lower() in _FALSE:
            return None
        if teddy_pager.strip().lower() not in _TRUE:
            environ_pager = teddy_pager  # a command: it takes core.pager's place
    command = environ_pager
    if command is None:
        command = _config("core.pager")
    if command is None:
        command = os.environ.get("PAGER", "less")
    if command.strip() in ("", "cat") or not _runnable(command.strip()):
        return None
    return command


def _runnable(command: str) -> bool:
    """Whether the pager's program can be found (one that is not installed would swallow
    the output); a command with shell syntax is the shell's to judge."""
    if any(c in command for c in "|&;<>()$`\\\"'*?[#~=%"):
        return True
    import shutil  # bz2 and lzma with it: for a terminal's pager only, not for every command

    return shutil.which(command.split()[0]) is not None


def _start(command: str) -> None:
    """Run `command` through the shell with our stdout (and a terminal stderr) as its input."""
    sys.stdout.flush()
    environ = {"LESS": "FRX", "LV": "-c", **os.environ, IN_USE: "true"}
    try:
        pager = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=environ)
    except OSError:
        return  # git too prints without a pager when it cannot start one
    assert pager.stdin is not None
    os.environ[IN_USE] = "true"  # colour decisions now see the pager, as git's do
    os.dup2(pager.stdin.fileno(), sys.stdout.fileno())
    if sys.stderr.isatty():
        os.dup2(pager.stdin.fileno(), sys.stderr.fileno())
    pager.stdin.close()
    atexit.register(_wait, pager)


def _wait(pager: "subprocess.Popen[bytes]") -> None:
    """Close our ends so the pager sees the end of the output, then wait for the user."""
    with contextlib.suppress(BrokenPipeError, ValueError):
        sys.stdout.flush()  # fails when the user quit the pager early: nothing to show
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, stream.fileno())
            os.close(null)
    pager.wait()


def _no_pager_flag() -> bool:
    ctx = click.get_current_context(silent=True)
    return bool(ctx and ctx.meta.get(FLAG))


def remember_no_pager(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[FLAG] = True


def page_output(function: F) -> F:
    """Decorate a command whose output may be long: it is shown through the pager."""

    @wraps(function)
    def paged(*args: Any, **kwargs: Any) -> Any:
        command = pager_command()
        if command:
            _start(command)
        return function(*args, **kwargs)

    return paged  # type: ignore[return-value]
