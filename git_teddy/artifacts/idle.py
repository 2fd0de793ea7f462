"""When a session times out (spec 003: "the user pauses or the session times out"): an
active session without a commit for longer than teddy.idleTimeout reads as paused, resuming
at its last turn. Derived from timestamps when read (pure): nothing is written."""

from datetime import datetime


def idle_seconds(last_active: str, now: int) -> int | None:
    """Seconds from `last_active` (ISO 8601, as git-teddy writes it) to `now`; None for a
    time it cannot read."""
    try:
        return now - int(datetime.fromisoformat(last_active).timestamp())
    except (TypeError, ValueError):
        return None


def timed_out(status: str, last_active: str, now: int, timeout: int) -> bool:
    """An active session idle for longer than `timeout` seconds (0: never)."""
    if status != "active" or timeout <= 0:
        return False
    idle = idle_seconds(last_active, now)
    return idle is not None and idle > timeout
