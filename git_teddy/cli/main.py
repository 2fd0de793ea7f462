"""Entry point of `git-teddy`: a lazy click group and the mapping of errors to exit codes.

Subcommands are imported only when used, so `git teddy --version` starts fast.
"""

import importlib
import sys
import traceback

import click

from git_teddy import __version__
from git_teddy.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_USAGE, EXIT_USER_ERROR, TeddyError

# name -> "module:function"; the order is the order of `git teddy -h`.
COMMANDS: dict[str, str] = {
    "new": "git_teddy.cli.session_cmds:new",
    "list": "git_teddy.cli.index_cmds:list_sessions",
    "show": "git_teddy.cli.session_cmds:show",
    "log": "git_teddy.cli.session_cmds:log",
    "plan": "git_teddy.cli.turn_cmds:plan",
    "execute": "git_teddy.cli.turn_cmds:execute",
    "start": "git_teddy.cli.loop_cmds:start",
    "continue": "git_teddy.cli.loop_cmds:continue_",
    "resume": "git_teddy.cli.loop_cmds:resume",
    "pause": "git_teddy.cli.loop_cmds:pause",
    "context": "git_teddy.cli.turn_cmds:context",
    "branch": "git_teddy.cli.turn_cmds:branch",
    "restore": "git_teddy.cli.turn_cmds:restore",
    "stats": "git_teddy.cli.index_cmds:stats",
    "index": "git_teddy.cli.index_cmds:index",
    "codify": "git_teddy.cli.learn_cmds:codify",
    "learn": "git_teddy.cli.learn_cmds:learn",
    "push": "git_teddy.cli.session_cmds:push",
    "fetch": "git_teddy.cli.session_cmds:fetch",
    "hooks": "git_teddy.cli.hooks_cmds:hooks",
    "blame": "git_teddy.cli.turn_cmds:blame",
    "validate": "git_teddy.cli.plan_cmds:validate",
    "preprocess": "git_teddy.cli.plan_cmds:preprocess",
}


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
        return command


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Settings come from `git config teddy.*`; TEDDY_* environment variables override them.",
)
@click.version_option(
    __version__, "--version", prog_name="git-teddy", message="%(prog)s %(version)s"
)
def cli() -> None:
    """Pair-program with AI models; every prompt, plan and result is git history."""


def print_error(error: TeddyError) -> None:
    click.echo(f"error: {error.message}", err=True)
    if error.hint:
        for line in error.hint.splitlines():
            click.echo(f"hint: {line}", err=True)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (also used by `python -m git_teddy`)."""
    try:
        # Without standalone mode click returns what `ctx.exit(code)` asked for, or None.
        result = cli.main(args=argv, prog_name="git teddy", standalone_mode=False)
    except TeddyError as error:
        print_error(error)
        return EXIT_USER_ERROR
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.UsageError as error:
        error.show()
        return EXIT_USAGE
    except click.ClickException as error:
        error.show()
        return error.exit_code
    except (KeyboardInterrupt, click.Abort):
        click.echo("\ninterrupted", err=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`); nothing to report
        return EXIT_USER_ERROR
    except Exception:
        traceback.print_exc()
        click.echo(
            "error: this is a bug in git-teddy; please report it with the trace above", err=True
        )
        return EXIT_BUG
    return result if isinstance(result, int) else 0


def run() -> None:
    sys.exit(main())
