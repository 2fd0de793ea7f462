"""`git teddy config`: every `teddy.*` setting, its value and where that comes from."""

import click

from git_teddy.cli.pager import page_output
from git_teddy.cli.textio import echo_json
from git_teddy.errors import TeddyError
from git_teddy.index.views import table
from git_teddy.session.workspace import open_settings
from git_teddy.settings import DEFAULT, ENVIRONMENT, Entry


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the settings as JSON.")
@page_output
def config(as_json: bool) -> None:
    """List every setting with its value and where that comes from: its default, git config
    or an environment variable (TEDDY_..., which overrides git config).

    A bad value is listed with what is wrong with it, then reported as an error (exit 1), as
    any command that reads it would. Set a value with `git config teddy.<key> <value>`; the
    man page (`git help teddy`) describes every key."""
    settings = open_settings()
    entries = settings.listing()
    unknown = settings.unknown()
    if as_json:
        echo_json({"settings": [e.as_json() for e in entries], "unknown": unknown})
    else:
        click.echo(table([["KEY", "VALUE", "FROM", ""], *map(_row, entries)]))
        for key in unknown:
            click.echo(f"note: {key} is set in git config, but git-teddy reads no such setting")
    _fail_on_bad([entry for entry in entries if entry.error])


def _fail_on_bad(bad: list[Entry]) -> None:
    """Exit 1 as a command reading these values would, with its error for a single one."""
    if len(bad) == 1 and bad[0].error:
        raise bad[0].error
    if bad:
        raise TeddyError(
            f"{len(bad)} settings have bad values: {', '.join(e.setting.key for e in bad)}",
            "fix each with `git config <key> <value>` (or unset it, or its environment "
            "variable); the listing says what each must be",
        )


def _row(entry: Entry) -> list[str]:
    origin = entry.origin
    if origin == ENVIRONMENT:
        origin = entry.setting.env
    problem = f"bad: must be {entry.setting.requirement}" if entry.error else ""
    return [entry.setting.key, entry.shown, origin if origin != DEFAULT else "default", problem]
