"""Whether `git teddy` colours its output, decided as git decides (one function, `use_color`).

The order, first that says something wins: `--color=WHEN` on the command line, git config
`color.teddy`, then `color.ui` (read as git reads color.* values: never/always/auto, or a
boolean where true means auto), then `NO_COLOR` (set and non-empty: no colour), then auto.
Auto colours a terminal, unless TERM is `dumb`, as git's auto does; output going to a pager
git or git-teddy started (GIT_PAGER_IN_USE) counts as a terminal unless `color.pager` is
false. A bare `--color` means always, as in git.

git 2.39 ignores NO_COLOR altogether (`NO_COLOR=1 git -c color.ui=always log | cat` is
coloured); we honour it, but only where git would fall back to auto: an explicit choice in
config or on the command line still wins, which is also what no-color.org asks.
"""

import os
import sys
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

WHENS = ("auto", "always", "never")
_TRUE = ("true", "yes", "on", "1")
_FALSE_WORDS = ("false", "no", "off", "0")
_FALSE = (*_FALSE_WORDS, "")


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


def _from_config(values: Mapping[str, list[str]]) -> str | None:
    """The last valid `color.teddy`, else the last valid `color.ui` (git's last-one-wins)."""
    for key in ("color.teddy", "color.ui"):
        whens = [w for w in map(_when, values.get(key, [])) if w]
        if whens:
            return whens[-1]
    return None


def _terminal(values: Mapping[str, list[str]]) -> bool:
    """Whether stdout is a terminal, or a pager that shows colours (git's `color.pager`)."""
    if sys.stdout.isatty():
        return True
    pager_color = values.get("color.pager", ["true"])[-1].strip().lower()
    return bool(os.environ.get("GIT_PAGER_IN_USE")) and pager_color not in (
        "false",
        "no",
        "off",
        "0",
    )


def use_color(values: Mapping[str, list[str]] | None = None) -> bool:
    """Colour stdout? `--color` of the running command (or of the top-level group) first.
    `values`: the color.teddy, color.ui and color.pager values the command read already
    (a workspace's `repo.git_config`), else they are read here."""
    if values is None:
        from git_teddy.gitstore.plumbing import read_config

        values = read_config(None, "color")
    when = _flag() or _from_config(values)
    if when is None and os.environ.get("NO_COLOR"):
        when = "never"
    if when in ("always", "never"):
        return when == "always"
    return _terminal(values) and os.environ.get("TERM") != "dumb"


def bare_color_is_always(argv: list[str]) -> list[str]:
    """git's `--color` takes its value only after `=`, a bare one meaning always; click would
    take the next word as the value (`--color show`), so a bare one is spelled out first."""
    if "--" in argv:
        split = argv.index("--")
        return [*bare_color_is_always(argv[:split]), *argv[split:]]
    return ["--color=always" if arg == "--color" else arg for arg in argv]


FLAG = "git_teddy.color"  # in click's ctx.meta, which a command shares with its group


def chosen_color() -> str | None:
    """The `--color=WHEN` given on the command line (the command's or the group's), else
    None: for commands that let git decide the rest, as `git diff` does."""
    return _flag()


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
        metavar="[=WHEN]",
        expose_value=False,
        callback=_remember,
        help="Colour the output: auto (a terminal; the default), always (also a bare "
        "--color) or never. "
        "Wins over git config color.teddy and color.ui, and over NO_COLOR.",
    )(function)
