"""The one error type users can cause, and the exit codes the CLI maps errors to."""

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
