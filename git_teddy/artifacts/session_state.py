"""A session's status, start, channel, turn count and resume point, from what its log's
frontmatter and its branches' turn folders say, and as read at a given time (an active
session idle past teddy.idleTimeout reads as paused, spec 003). Pure: the one home of these
rules, for `show` (SessionStore.summary) and `list`/`stats` (the index's rows)."""

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from git_teddy.artifacts.idle import timed_out
from git_teddy.artifacts.names import turn_depth


@dataclass(frozen=True)
class SessionState:
    """What a session's log and turn folders say of it, as recorded (no clock involved)."""

    status: str  # the log's, else "unknown"
    started: str  # the log's, else the time of the session's first commit
    channel: str
    turns: int  # every turn folder of every branch, counted once
    resume_point: str | None  # the log's, else the last turn of the branch it continues on


def session_state(
    meta: Mapping[str, Any],
    root_time: str,
    folders: Mapping[str, Collection[str]],
    current: str,
    phases: int = 0,
) -> SessionState:
    """The state of a session whose log (of the branch it continues on, `current`) has the
    frontmatter `meta`, whose first commit was made at `root_time`, and whose branches hold
    the turn folders `folders` (by branch). A missing or empty field falls back, as a
    hand-edited log may leave one. `phases`: the log's phase count, counted instead when no
    turn folders were read (an index row written before folders were)."""
    every = frozenset().union(*folders.values()) if folders else frozenset()
    return SessionState(
        status=optional_str(meta.get("status")) or "unknown",
        started=optional_str(meta.get("started")) or root_time,
        channel=optional_str(meta.get("channel")) or "",
        turns=len(every) or phases,
        # where `resume` takes the session up (loop.resume: the log's point, else its last turn)
        resume_point=optional_str(meta.get("resume_point")) or last_turn(folders.get(current, ())),
    )


@dataclass(frozen=True)
class StateAsRead:
    """A session's status as read at a given time."""

    status: str
    resume_point: str | None  # a paused session's only
    timed_out: bool  # active in its log, but idle past the timeout: reads as paused


def as_read(
    status: str, resume_point: str | None, last_active: str, now: int, timeout: int
) -> StateAsRead:
    """The status a session recorded as `status` reads as at `now` (seconds since the epoch),
    its last commit made at `last_active`: idle past `timeout` seconds (0: never), an active
    session reads as paused at its resume point. Derived when read: nothing is written."""
    idle = timed_out(status, last_active, now, timeout)
    shown = "paused" if idle else status
    return StateAsRead(shown, resume_point if shown == "paused" else None, idle)


def last_turn(folders: Collection[str]) -> str | None:
    """The newest turn of a branch's folders: the deepest; of two as deep (a turn and its
    alternative), the alternative, whose branch holds the other only as history."""
    return max(folders, key=lambda name: (turn_depth(name), name), default=None)


def optional_str(value: object) -> str | None:
    return None if value is None or value == "" else str(value)
