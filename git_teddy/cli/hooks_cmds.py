"""`git teddy hooks install|uninstall|status`: the prepare-commit-msg and pre-push hooks."""

import click

from git_teddy.hooks.install import HOOK_NAMES
from git_teddy.session.workspace import open_workspace

HOOK_ARGUMENT = click.argument(
    "names", nargs=-1, metavar="[HOOK...]", type=click.Choice(HOOK_NAMES)
)


@click.group()
def hooks() -> None:
    """Install, remove or check git-teddy's git hooks.

    prepare-commit-msg adds Teddy-Session/Teddy-Turn trailers to commits of changes applied
    from a turn; pre-push refuses to push session refs holding a secret (--no-verify skips
    it). They go into the hooks folder git uses (core.hooksPath respected) inside marked
    blocks, beside what the hook files already do."""


@hooks.command()
@HOOK_ARGUMENT
def install(names: tuple[str, ...]) -> None:
    """Install the hooks (default: all) or update them; records this Python interpreter."""
    from git_teddy.hooks.install import install_hooks

    ws = open_workspace()
    for name, path, done in install_hooks(
        ws.repo, ws.settings.ref_prefix, list(names or HOOK_NAMES)
    ):
        click.echo(f"{name}: {done} ({path})")


@hooks.command()
@HOOK_ARGUMENT
def uninstall(names: tuple[str, ...]) -> None:
    """Remove git-teddy's block from the hooks (default: all); the rest stays as it was."""
    from git_teddy.hooks.install import uninstall_hooks

    for name, path, done in uninstall_hooks(open_workspace().repo, list(names or HOOK_NAMES)):
        click.echo(f"{name}: {done} ({path})")


@hooks.command()
@HOOK_ARGUMENT
def status(names: tuple[str, ...]) -> None:
    """Per hook: installed, not installed or outdated, and where."""
    from git_teddy.hooks.install import hook_states

    ws = open_workspace()
    for state in hook_states(ws.repo, ws.settings.ref_prefix, list(names or HOOK_NAMES)):
        note = f"; {state.note}" if state.note else ""
        click.echo(f"{state.name}: {state.state} ({state.path}{note})")
