"""`git teddy help [COMMAND]` and `git teddy completion SHELL`: the habits of a git user's
shell (`git help`, `git <TAB>`)."""

import click

from git_teddy.cli.completion import SHELLS, completion_script
from git_teddy.errors import TeddyError


@click.command("help")
@click.argument("command", required=False)
@click.pass_context
def help_(ctx: click.Context, command: str | None) -> None:
    """Show the help of git teddy, or of COMMAND (the same as `git teddy COMMAND -h`; `git help
    teddy` opens the man page)."""
    group_ctx = ctx.parent
    assert group_ctx is not None and isinstance(group_ctx.command, click.Group)
    if command is None:
        click.echo(group_ctx.get_help())
        return
    found = group_ctx.command.get_command(group_ctx, command)
    if found is None:
        raise TeddyError(f"there is no command {command!r}", "`git teddy help` lists them")
    with found.make_context(command, [], parent=group_ctx, resilient_parsing=True) as sub:
        click.echo(found.get_help(sub))


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
def completion(shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish). Load it from your shell's
    start-up file, e.g. `eval "$(git teddy completion bash)"` in ~/.bashrc; in bash it also
    completes `git teddy <TAB>` through git's own completion."""
    click.echo(completion_script(shell))
