"""The one error type users can cause, and the exit codes the CLI maps errors to."""

EXIT_USER_ERROR = 1
EXIT_USAGE = 2
EXIT_BUG = 3
EXIT_INTERRUPTED = 130


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
