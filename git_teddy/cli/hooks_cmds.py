"""`git teddy hooks install|uninstall|status`: the prepare-commit-msg and pre-push hooks."""

import click

from git_teddy.hooks.install import HOOK_NAMES
from git_teddy.hooks.managers import Place
from git_teddy.session.workspace import open_workspace

HOOK_ARGUMENT = click.argument(
    "names", nargs=-1, metavar="[HOOK...]", type=click.Choice(HOOK_NAMES)
)


SHARED_OPTION = click.option(
    "--shared-hooks-path",
    "shared_ok",
    is_flag=True,
    help="Change the hooks even when core.hooksPath comes from your global or system git "
    "config: that folder is shared by every repository without its own core.hooksPath.",
)


@click.group()
def hooks() -> None:
    """Install, remove or check git-teddy's git hooks.

    prepare-commit-msg adds Teddy-Session/Teddy-Turn/Teddy-Snapshot trailers to commits of
    changes applied from a turn (the session then records the commit that took them);
    pre-push refuses to push session history holding a secret, under any ref or tag (git
    push --no-verify skips it; git teddy push --allow-secret ID lets one through).
    They go into the hooks folder git uses (core.hooksPath respected) inside marked blocks,
    beside what the hook files already do, and name the Python they run: if it is gone, they
    print one line and let the commit or push go on.

    Beside other hook managers: with husky the block goes into your own .husky/<hook>
    script (husky rewrites .husky/_ on every install; the script is your tracked file, yours
    to commit); with pre-commit it goes into <hook>.legacy, which pre-commit's hook runs
    first. A core.hooksPath from your global or system config is shared by other
    repositories: install and uninstall refuse it without --shared-hooks-path."""


def _report(done: list[tuple[Place, str]]) -> None:
    notes: list[str] = []
    for where, what in done:
        click.echo(f"{where.name}: {what} ({where.path})")
        if where.note and where.note not in notes:
            notes.append(where.note)
    for note in notes:
        click.echo(f"note: {note}")


@hooks.command()
@HOOK_ARGUMENT
@SHARED_OPTION
def install(names: tuple[str, ...], shared_ok: bool) -> None:
    """Install the hooks (default: all) or update them; records this Python interpreter."""
    from git_teddy.hooks.install import install_hooks

    ws = open_workspace()
    _report(install_hooks(ws.repo, ws.settings.ref_prefix, list(names or HOOK_NAMES), shared_ok))


@hooks.command()
@HOOK_ARGUMENT
@SHARED_OPTION
def uninstall(names: tuple[str, ...], shared_ok: bool) -> None:
    """Remove git-teddy's block from the hooks (default: all); the rest stays as it was."""
    from git_teddy.hooks.install import uninstall_hooks

    repo = open_workspace().repo
    for where, what in uninstall_hooks(repo, list(names or HOOK_NAMES), shared_ok):
        click.echo(f"{where.name}: {what} ({where.path})")


@hooks.command()
@HOOK_ARGUMENT
def status(names: tuple[str, ...]) -> None:
    """Per hook: installed, not installed or outdated, where, and who runs it."""
    from git_teddy.hooks.install import hook_states

    ws = open_workspace()
    for state in hook_states(ws.repo, ws.settings.ref_prefix, list(names or HOOK_NAMES)):
        note = f"; {state.note}" if state.note else ""
        click.echo(f"{state.name}: {state.state} ({state.path}{note})")
