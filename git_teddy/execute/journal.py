"""The journal of an `execute` in progress (derived state, `Layout.execute_journal`): what is
done so far, written before and after each step, so that a run killed midway is resumed by
the next `execute` and no side effect happens twice: finished actions keep their logs and
are not run again, the worktree's state after them is put back, a result snapshot once
taken is reused, a result once applied is not applied again. An action that was running
when the run was killed is never run again: it is recorded as failed ("interrupted").
The journal goes when the report is committed; it is local and never pushed (it holds
command output before redaction)."""

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from git_teddy.artifacts.report import ActionLog, MemoReport, RunStatus
from git_teddy.errors import TeddyError
from git_teddy.gitstore.permissions import Shared

INTERRUPTED = (
    "interrupted: git teddy was killed while this action ran; it was not run again "
    "(what it did before that is unknown)"
)


class Journal(BaseModel):
    """An execution's progress. `tree` is the scratch worktree's state (a tree id) after the
    last finished step; `running` the action started and not finished."""

    model_config = ConfigDict(defer_build=True)

    plan_commit: str  # the pending plan's commit: a journal of another plan is not this one
    start_time: str
    memos: MemoReport | None = None  # set once the memo step is done
    tree: str | None = None
    actions: list[ActionLog] = Field(default_factory=list)  # finished (or skipped), in order
    status: RunStatus = "SUCCESS"
    running: int | None = None
    snapshot: str | None = None  # the result snapshot, once taken
    notes: list[str] = Field(default_factory=list)
    user_state: str | None = None  # the user's files, saved before applying
    applied: bool | str | None = None  # how applying ended, once it has


class JournalFile:
    """A journal and the file it is kept in; every change is written at once (atomically)."""

    def __init__(self, path: Path, shared: Shared, journal: Journal, resumed: bool) -> None:
        self.path = path
        self.shared = shared
        self.journal = journal
        self.resumed = resumed  # it was left by an interrupted run

    def update(self, **changes: object) -> None:
        self.journal = self.journal.model_copy(update=changes)
        self.shared.make_folders(self.path.parent)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        temporary.write_text(self.journal.model_dump_json(indent=1) + "\n", encoding="utf-8")
        self.shared.adjust(temporary)
        os.replace(temporary, self.path)  # never a half-written journal

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)

    def recovered(self) -> list[str]:
        """What an interrupted run had done, in the words the user is told."""
        done = self.journal
        lines = []
        if done.memos is not None and done.memos.decision != "none":
            lines.append(f"memo changes: {done.memos.decision} (not asked again)")
        finished = [log for log in done.actions if log.status != "SKIPPED"]
        if finished:
            listed = ", ".join(f"{log.index} ({log.action_type}, {log.status})" for log in finished)
            lines.append(f"actions done: {listed}; not run again, their logs are reused")
        if done.running is not None:
            lines.append(f"action {done.running} was running when it was killed: {INTERRUPTED}")
        if done.snapshot:
            lines.append(f"result snapshot {done.snapshot} (reused)")
        if done.user_state:
            lines.append(f"your files were saved as snapshot {done.user_state}")
        if done.applied is not None:
            lines.append(f"applying had finished ({done.applied}): not applied again")
        return lines


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """A Ctrl-C that comes while the journal records a step is taken after it: a step that
    finished is recorded as finished, never left as "running" (which the next run could
    only call interrupted)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if pressed:
        raise KeyboardInterrupt


def open_journal(path: Path, shared: Shared, plan_commit: str, start_time: str) -> JournalFile:
    """The journal an interrupted run of this plan left, else a new one (written now)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    except (OSError, UnicodeDecodeError) as error:
        raise _unreadable(path, str(error)) from None
    if text is not None:
        try:
            journal = Journal.model_validate_json(text)
        except ValidationError as error:
            raise _unreadable(path, f"{error.error_count()} problem(s)") from None
        if journal.plan_commit == plan_commit:
            return JournalFile(path, shared, journal, resumed=True)
    started = JournalFile(
        path, shared, Journal(plan_commit=plan_commit, start_time=start_time), False
    )
    started.update()
    return started


def _unreadable(path: Path, why: str) -> TeddyError:
    # What an interrupted run did cannot be told: run nothing rather than repeat it.
    return TeddyError(
        f"the journal of an interrupted execute, {path}, cannot be read ({why}), so what that "
        "run already did is unknown and nothing was run",
        f"check what the plan's actions did (`git teddy show`), then remove it to run the "
        f"plan from the start: rm '{path}'",
    )
