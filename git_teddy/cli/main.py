"""Entry point of `git-teddy`: running the click group and mapping errors to exit codes.

Subcommands are imported only when used (git_teddy.cli.group), so `git teddy --version`
starts fast; click itself only when needed, so `git teddy context` answered from its cache
(git_teddy.planning.context_cache) imports neither click nor the session store.
"""

import codecs
import errno
import sys
from typing import TYPE_CHECKING

from git_teddy.errors import EXIT_BUG, EXIT_INTERRUPTED, EXIT_USAGE, EXIT_USER_ERROR, TeddyError


def __getattr__(name: str) -> object:
    """`cli` and `LazyGroup` live in git_teddy.cli.group, which imports click."""
    if name in ("cli", "LazyGroup"):
        from git_teddy.cli import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    import click


def print_error(error: TeddyError) -> None:
    import click

    from git_teddy.printable import printable  # a message may quote a teammate's session

    click.echo(f"error: {printable(error.message)}", err=True)
    if error.hint:
        for line in error.hint.splitlines():
            click.echo(f"hint: {printable(line)}", err=True)


def print_usage_error(error: "click.UsageError") -> None:
    """A wrong command line as every other refusal reads: `error:` and a `hint:` with the
    command's usage and where its options are described."""
    message = error.format_message()
    if message[:1].isupper() and message[1:2].islower():
        message = message[0].lower() + message[1:]  # click's "No such option": git's case
    if isinstance(hint := getattr(error, "hint", None), str):  # a usage error of our own
        print_error(TeddyError(message, hint))
        return
    ctx = error.ctx
    if ctx is None:
        print_error(TeddyError(message.rstrip("."), "`git teddy -h` lists the commands"))
        return
    usage = ctx.get_usage().removeprefix("Usage: ")
    described = "lists the commands" if ctx.parent is None else "describes every option"
    print_error(
        TeddyError(message.rstrip("."), f"usage: {usage}\n`{ctx.command_path} -h` {described}")
    )


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (also used by `python -m git_teddy`)."""
    import click

    from git_teddy.cli.color import bare_color_is_always
    from git_teddy.cli.commands import COMPLETE_VAR
    from git_teddy.cli.group import cli
    from git_teddy.gitstore.runner import anchor_repository_env
    from git_teddy.ui import Interrupted

    anchor_repository_env()
    argv = bare_color_is_always(sys.argv[1:] if argv is None else argv)
    try:
        # Without standalone mode click returns what `ctx.exit(code)` asked for, or None.
        result = cli.main(
            args=argv, prog_name="git teddy", complete_var=COMPLETE_VAR, standalone_mode=False
        )
    except TeddyError as error:
        print_error(error)
        return EXIT_USER_ERROR
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.UsageError as error:
        print_usage_error(error)
        return EXIT_USAGE
    except click.ClickException as error:
        error.show()
        return error.exit_code
    except (KeyboardInterrupt, click.Abort, Interrupted):
        click.echo("\ninterrupted", err=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`); nothing to report
        return EXIT_USER_ERROR
    except OSError as error:
        if error.errno not in UNWRITABLE:
            return _bug()
        print_error(unwritable(error))
        sys.unraisablehook = _quiet_when_unwritable  # dulwich's file objects retry at exit
        return EXIT_USER_ERROR
    except Exception:
        return _bug()
    return result if isinstance(result, int) else 0


def _bug() -> int:
    import traceback

    traceback.print_exc()
    print(
        "error: this is a bug in git-teddy; please report it with the trace above", file=sys.stderr
    )
    return EXIT_BUG


# A folder teddy cannot write (read-only, immutable, not the user's) or a full disk: the
# user's to fix, not a bug. Every write teddy makes is atomic (a temporary file renamed), so
# the command can simply be run again.
UNWRITABLE = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT}


def _quiet_when_unwritable(unraisable: "sys.UnraisableHookArgs") -> None:
    value = unraisable.exc_value
    if not (isinstance(value, OSError) and value.errno in UNWRITABLE):
        sys.__unraisablehook__(unraisable)


def unwritable(error: OSError) -> TeddyError:
    where = f" {error.filename}" if error.filename else ""
    cause = "the disk is full" if error.errno in (errno.ENOSPC, errno.EDQUOT) else "not allowed"
    return TeddyError(
        f"could not write{where}: {error.strerror or error} ({cause})",
        "make room or give yourself write access there (`ls -ld` the folder), then run the "
        "same command again: what teddy writes is written whole or not at all",
    )


def serve_cached_context(argv: list[str]) -> int | None:
    """Answer `git teddy context ARGV` from the cache: the exit code, or None to run the
    full command. Prints exactly what the full command would (click.echo on a UTF-8 stdout)."""
    from pathlib import Path

    from git_teddy.planning.context_cache import lookup, parse_args
    from git_teddy.printable import json_printable, printable

    try:
        parsed = parse_args(argv)
        if parsed is None or sys.stdout is None:
            return None
        session_spec, depth, as_json = parsed
        out = lookup(Path.cwd(), session_spec, depth, "json" if as_json else "text") + "\n"
        out = json_printable(out) if as_json else printable(out)  # as the full command
        stream = sys.stdout
        if codecs.lookup(stream.encoding).name != "utf-8" or "\x1b" in out:
            return None  # click would re-encode or strip escape codes: let it
        out.encode(stream.encoding, stream.errors or "strict")  # a failure: let click fail
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception:  # a miss, or anything unexpected: the full command decides
        return None
    try:
        stream.write(out)
        stream.flush()
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`), as the full command does
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def run() -> None:
    from git_teddy.gitstore.runner import (
        anchor_repository_env,
        seed_yaml_pattern,
        skip_pydantic_plugins,
    )

    anchor_repository_env()  # before any git runs, the cached answer's included
    skip_pydantic_plugins()
    seed_yaml_pattern()
    if sys.argv[1:2] == ["context"]:
        code = serve_cached_context(sys.argv[2:])
        if code is not None:
            sys.exit(code)
    sys.exit(main())
