"""Whether `git teddy` colours its output, decided as git decides (one function, `use_color`).

The order, first that says something wins: `--color=WHEN` on the command line, git config
`color.teddy`, then `color.ui` (read as git reads color.* values: never/always/auto, or a
boolean where true means auto), then `NO_COLOR` (set and non-empty: no colour), then auto.
Auto colours a terminal, unless TERM is `dumb`, as git's auto does.

git 2.39 ignores NO_COLOR altogether (`NO_COLOR=1 git -c color.ui=always log | cat` is
coloured); we honour it, but only where git would fall back to auto: an explicit choice in
config or on the command line still wins, which is also what no-color.org asks.
"""

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

WHENS = ("auto", "always", "never")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0", "")


def _when(raw: str) -> str | None:
    """A color.* value as git reads it: the word, true (auto) or false (never); None for a
    value git rejects too (we ignore it rather than fail a command over its colours)."""
    value = raw.strip().lower()
    if value in WHENS:
        return value
    if value in _TRUE:
        return "auto"
    if value in _FALSE:
        return "never"
    return None


def _from_config() -> str | None:
    """The last valid `color.teddy`, else the last valid `color.ui` (git's last-one-wins)."""
    from git_teddy.gitstore.plumbing import read_config

    values = read_config(None, "color")
    for key in ("color.teddy", "color.ui"):
        whens = [w for w in map(_when, values.get(key, [])) if w]
        if whens:
            return whens[-1]
    return None


def use_color() -> bool:
    """Colour stdout? `--color` of the running command (or of the top-level group) first."""
    when = _flag() or _from_config()
    if when is None and os.environ.get("NO_COLOR"):
        when = "never"
    if when in ("always", "never"):
        return when == "always"
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


FLAG = "git_teddy.color"  # in click's ctx.meta, which a command shares with its group


def _flag() -> str | None:
    ctx = click.get_current_context(silent=True)
    when = ctx.meta.get(FLAG) if ctx else None
    return when if isinstance(when, str) else None


def _remember(ctx: click.Context, _param: click.Parameter, when: str | None) -> None:
    if when is not None:  # the command's own --color is parsed after the group's: it wins
        ctx.meta[FLAG] = when


def color_option(function: F) -> F:
    """`--color=WHEN`, for the group and for the commands that colour."""
    return click.option(
        "--color",
        type=click.Choice(WHENS),
        metavar="WHEN",
        expose_value=False,
        callback=_remember,
        help="Colour the output: auto (a terminal; the default), always or never. "
        "Wins over git config color.teddy and color.ui, and over NO_COLOR.",
    )(function)
