"""The click group of `git teddy`: subcommands (git_teddy.cli.commands.COMMANDS) are imported
only when used, so `git teddy --version` starts fast."""

import importlib

import click

from git_teddy import __version__
from git_teddy.cli.color import color_option
from git_teddy.cli.commands import COMMANDS
from git_teddy.cli.pager import remember_no_pager
from git_teddy.cli.terminal import remember_quiet


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        command = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command)
        if not any(p.name == "quiet" for p in command.params):
            command.params.append(quiet_option())  # `git teddy execute -q`, as after `teddy`
        return command


def quiet_option() -> click.Option:
    return click.Option(
        ["-q", "--quiet"],
        is_flag=True,
        help="Print no progress lines (results, warnings and errors still show).",
        expose_value=False,
        callback=remember_quiet,
    )


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Settings come from `git config teddy.*`; TEDDY_* environment variables override "
    "them. `git teddy config` lists them.",
)
@click.version_option(
    __version__, "--version", prog_name="git-teddy", message="%(prog)s %(version)s"
)
@color_option
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Print no progress lines on stderr (results, warnings and errors still show).",
    expose_value=False,
    callback=remember_quiet,
)
@click.option(
    "-P",
    "--no-pager",
    is_flag=True,
    help="Do not pipe long output (show, log, blame, diff, list, stats, config) into a pager.",
    expose_value=False,
    callback=remember_no_pager,
)
def cli() -> None:
    """Pair-program with AI models; every prompt, plan and result is git history."""
    # --color, -q and --no-pager are read where used (git_teddy.cli.color, the console's
    # `progress`, git_teddy.cli.pager) from ctx.meta: deciding colour or a pager reads git
    # config, which most commands never need.
    tell_interrupted()


def tell_interrupted() -> None:
    """Before any command: a `restore` or `branch` killed after it saved the user's files
    (git_teddy.gitstore.layout `Placing`) is told, once, with the way back."""
    from git_teddy.errors import TeddyError
    from git_teddy.gitstore.layout import Layout
    from git_teddy.gitstore.plumbing import locate

    try:
        layout = Layout(locate().common_dir)
    except TeddyError:
        return  # not in a repository: the command says so if it needs one
    for placing in layout.interrupted_placings():
        from git_teddy.session.restore import interrupted_note

        click.echo(interrupted_note(placing), err=True)
        layout.clear_placing(placing.session)
