"""What the store reads back from git, as plain dataclasses (pure): built by the store from
commits it read, never validated from a file, so `log` and `show` need not import pydantic
(issue 31 item 4). `dataclasses.asdict` is their JSON form."""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone

from git_teddy.artifacts.names import branch_of_turn, is_turn_name
from git_teddy.artifacts.trailers import parse_trailers


@dataclass
class TurnCommit:
    """One commit of a turn (its plan or its report), as its trailers describe it."""

    session: str
    turn: str
    branch: str
    id: str | None
    parent_id: str | None
    phase: str | None
    status: str | None
    agent: str | None
    model: str | None
    snapshot: str | None
    tokens_in: int | None
    tokens_out: int | None
    cost: float | None
    commit: str
    time: str
    # The user's commits that took this turn's result, whichever later commit recorded them
    # (SessionStore.turns fills it in).
    landed_in: list[str] = field(default_factory=list)


# On a session commit: the user's commits that took turns' results, not recorded before
# (`01 <commit>, 02 <commit>`; SessionStore.landings).
LANDED_TRAILER = "Teddy-Landed"


def parse_landings(value: str | None) -> dict[str, list[str]]:
    """`01 <commit>, 02 <commit>` -> {"01": [commit], "02": [commit]}; parts that are not a
    turn and a commit id are left out."""
    found: dict[str, list[str]] = {}
    for part in (value or "").split(","):
        words = part.split()
        if len(words) == 2 and is_turn_name(words[0]) and len(words[1]) in (40, 64):
            found.setdefault(words[0], []).append(words[1])
    return found


def landings_value(landings: dict[str, list[str]]) -> str:
    return ", ".join(f"{turn} {commit}" for turn, commits in landings.items() for commit in commits)


@dataclass
class SessionSummary:
    id: str
    status: str
    started: str
    channel: str
    turns: int
    branches: list[str]
    base_snapshot: str | None
    last_active: str
    resume_point: str | None = None  # where a paused session resumes
    timed_out: bool = False  # active, but idle past teddy.idleTimeout: reads as paused


def iso_time(timestamp: int, tz_offset: int) -> str:
    zone = timezone(timedelta(seconds=tz_offset)) if tz_offset else UTC
    return datetime.fromtimestamp(timestamp, zone).isoformat()


def _number(value: str | None, kind: type[int] | type[float]) -> int | float | None:
    try:
        return kind(value) if value is not None else None
    except ValueError:
        return None


def turn_commit_from_message(message: str, commit: str, time: str) -> TurnCommit | None:
    """The turn a commit message describes, or None for commits that are not turns."""
    trailers = parse_trailers(message)
    turn = trailers.get("Teddy-Turn")
    session = trailers.get("Teddy-Session")
    if not turn or not session or not is_turn_name(turn):
        return None
    tokens_in = _number(trailers.get("Teddy-Tokens-In"), int)
    tokens_out = _number(trailers.get("Teddy-Tokens-Out"), int)
    return TurnCommit(
        session=session,
        turn=turn,
        branch=branch_of_turn(turn),
        id=trailers.get("Teddy-Id"),
        parent_id=trailers.get("Teddy-Parent-Id"),
        phase=trailers.get("Teddy-Phase"),
        status=trailers.get("Teddy-Status"),
        agent=trailers.get("Teddy-Agent"),
        model=trailers.get("Teddy-Model"),
        snapshot=trailers.get("Teddy-Snapshot"),
        tokens_in=int(tokens_in) if tokens_in is not None else None,
        tokens_out=int(tokens_out) if tokens_out is not None else None,
        cost=_number(trailers.get("Teddy-Cost"), float),
        commit=commit,
        time=time,
    )
