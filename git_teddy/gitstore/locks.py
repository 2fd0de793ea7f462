"""Lock files and the processes that hold them: a lock named with its age and the safe way
out (as git words a held `.lock`), and whether a recorded process is still the one that was
started (its start time, so that a pid the system gave to another program is never taken
for it).

git refuses a held lock after a short wait and leaves the decision to the user, because it
cannot tell a running writer from a killed one; git-teddy does the same for git's own locks
(refs, objects). Its scratch worktree locks record the owner's start time, so for those a
killed owner is told apart from a live one.

A claim (`hold_claim`: a session being planned or executed) is a file held with flock, which
the system lets go when its holder dies, however it dies: a killed run never blocks the
next one, and no two processes can both believe they took over a stale claim. It records
the holder's pid, start time and what it is doing, to name it to whoever finds it held.
"""

import contextlib
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from git_teddy.errors import TeddyError, in_the_way

WAY_OUT = (
    "another git or git teddy process seems to be running in this repository; make sure "
    "all of them are done, then try again. If it still fails, a process was killed while "
    "it held the lock: remove the file to continue: rm '{lock}'"
)


def describe_age(path: Path) -> str:
    """How long ago `path` was last written, in the largest whole unit ("3 hours")."""
    try:
        seconds = max(0, int(time.time() - path.stat().st_mtime))
    except OSError:
        return "a moment"  # gone meanwhile: its writer has just finished
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = seconds // size
            return f"{count} {unit}{'s' if count > 1 else ''}"
    return f"{seconds} second{'' if seconds == 1 else 's'}"


def lock_error(lock: Path, what: str) -> TeddyError:
    """The refusal for a held lock: which file, how old, and how to get past it safely."""
    return TeddyError(
        f"unable to create '{lock}': File exists (made {describe_age(lock)} ago), so "
        f"{what} was not written",
        WAY_OUT.format(lock=lock),
    )


def wait_until_gone(lock: Path, tries: int, wait: float) -> bool:
    """Whether `lock` is gone, or goes within `tries` times `wait` seconds (a writer that
    holds it for a moment)."""
    for _ in range(tries):
        if not lock.exists():
            return True
        time.sleep(wait)
    return not lock.exists()


def start_time(pid: int) -> int | None:
    """When process `pid` started, in clock ticks since boot (field 22 of
    /proc/PID/stat); None when there is no such process, or no /proc to ask."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: fields follow the last ")".
    fields = stat.rpartition(")")[2].split()
    try:
        return int(fields[19])  # fields[0] is field 3
    except (IndexError, ValueError):
        return None


def can_verify() -> bool:
    """Whether this system says when a process started (Linux's /proc)."""
    return start_time(os.getpid()) is not None


def same_process(pid: int, started: int | None) -> bool | None:
    """True when `pid` is still the process that started at `started`; False when it is
    gone or another program now has the pid; None when that cannot be told (no start time
    recorded, or no /proc)."""
    if started is None or not can_verify():
        return None
    return start_time(pid) == started


def pid_exists(pid: int) -> bool:
    """Whether some process, of any user, has the pid."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Holder:
    """Who holds a claim, as its file says: pid, start time (clock ticks), what it does.
    (Not a dataclass: see layout.Placing.)"""

    __slots__ = ("doing", "pid", "started")

    def __init__(self, pid: int, started: int | None, doing: str) -> None:
        self.pid, self.started, self.doing = pid, started, doing

    def render(self) -> str:
        return f"pid={self.pid} started={self.started or ''}\n{self.doing}\n"

    @classmethod
    def parse(cls, text: str) -> "Holder | None":
        first, _, doing = text.partition("\n")
        fields = dict(word.partition("=")[::2] for word in first.split())
        try:
            started = fields.get("started")
            return cls(int(fields["pid"]), int(started) if started else None, doing.strip())
        except (KeyError, ValueError):
            return None  # killed between making the file and writing it


class ClaimHeld(TeddyError):
    """Another running process holds the claim."""

    def __init__(self, path: Path, holder: Holder | None) -> None:
        who = f"process {holder.pid}" if holder else "another process"
        super().__init__(f"{path} is held by {who}", "wait for it to finish")
        self.path = path
        self.holder = holder


class Claim:
    """A held claim: `say` updates what its file tells others this process is doing."""

    def __init__(self, fd: int, left_by: Holder | None) -> None:
        self.fd = fd
        self.left_by = left_by  # the holder a killed run left named in the file, if any

    def say(self, doing: str) -> None:
        data = Holder(os.getpid(), start_time(os.getpid()), doing).render().encode()
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, data, 0)


def _open_locked(path: Path) -> int:
    """The claim file at `path`, open and flocked by this process; ClaimHeld when another
    process holds it. A file unlinked by its releasing holder meanwhile is opened again."""
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except IsADirectoryError:
            raise in_the_way(path, "a session's claim file") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = Holder.parse(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
            os.close(fd)
            raise ClaimHeld(path, holder) from None
        with contextlib.suppress(FileNotFoundError):
            if os.fstat(fd).st_ino == path.stat().st_ino:
                return fd
        os.close(fd)  # released and removed between our open and our flock: again


@contextlib.contextmanager
def hold_claim(
    path: Path, doing: str, adjust: Callable[[Path], None] = lambda _: None
) -> Iterator[Claim]:
    """Hold the claim file `path` (its folder exists; `adjust` gives a new file its mode)
    while the block runs; ClaimHeld when a running process holds it. Released, and the
    file removed, when the block ends; the system releases it when this process dies, and
    the file then still names the killed holder (`Claim.left_by`)."""
    fd = _open_locked(path)
    try:
        adjust(path)
        left = Holder.parse(os.pread(fd, 4096, 0).decode("utf-8", "replace"))
        claim = Claim(fd, left)
        claim.say(doing)
        yield claim
    finally:
        path.unlink(missing_ok=True)  # while still held: the next opener makes a new file
        os.close(fd)
