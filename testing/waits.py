"""Waiting on events in tests: a condition polled until it holds, a child process or a
terminal prompt awaited. The one ceiling, EVENT_TIMEOUT, is a guard against a hang, never a
budget: a test must pass on a machine at any load, so its waits end on events, and any
bound on how fast something is belongs in a benchmark (benchmarks/, `make bench`)."""

import os
import time
from collections.abc import Callable

# Seconds. Below pytest-timeout's 300 s per test (pyproject.toml), so a wait that never ends
# fails with its own message rather than a dump of every thread.
EVENT_TIMEOUT = 240.0
POLL = 0.02


def wait_for(condition: Callable[[], object], what: str) -> None:
    """Return as soon as `condition()` is true; fail naming `what` if it never becomes so."""
    deadline = time.monotonic() + EVENT_TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(POLL)


def alive(pid: int) -> bool:
    """Whether process `pid` exists (a zombie not yet reaped counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
