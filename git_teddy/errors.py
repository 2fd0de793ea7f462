"""The one error type users can cause, and the exit codes the CLI maps errors to."""

from pathlib import Path

EXIT_USER_ERROR = 1  # refused (`error:` and `hint:`): nothing was done
EXIT_USAGE = 2  # the command line is wrong
EXIT_BUG = 3  # a bug in git-teddy (a traceback was printed)
# `execute` ran and recorded the turn, but not everything went well:
EXIT_TURN_FAILED = 4  # an action failed (the report says which)
EXIT_TURN_STOPPED = 5  # the user quit at an approval; the rest was skipped
EXIT_NOT_APPLIED = 6  # the result could not be applied at all (a submodule in the way...)
EXIT_CONFLICTS = 7  # applied where it merged; conflicts with the user's edits left to resolve
EXIT_INTERRUPTED = 130  # Ctrl-C


class TeddyError(Exception):
    """Something the user can cause and fix: printed as `error:` plus `hint:`, exit 1."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class NotARepositoryError(TeddyError):
    """The command needs a git repository with a working tree."""


class ConcurrentUpdateError(TeddyError):
    """A ref moved under us: another process wrote to the session first."""


class DamagedSessionError(TeddyError):
    """A session commit holds a file that is not what teddy wrote (edited by hand, or
    fetched so): the commit and the file to fix, and the ways out. Built in one place,
    `SessionStore.damaged`, which finds the commit."""


def in_the_way(path: Path, wanted: str) -> TeddyError:
    """Something not git-teddy's kind sits where its derived state keeps `wanted` (a folder
    where a file goes, or the reverse): teddy removes nothing it did not make, so the user
    does; it is derived state, rebuilt when needed."""
    kind = "a folder" if path.is_dir() else "a file"
    return TeddyError(
        f"{path} is {kind} where git-teddy keeps {wanted}",
        f"remove it (git-teddy's local derived state, rebuilt when needed): rm -r '{path}'",
    )
