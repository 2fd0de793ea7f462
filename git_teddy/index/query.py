"""Queries over the index (pure): the rows `list` selects, and the totals `stats` gives,
overall or per agent, channel or status."""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from git_teddy.artifacts.session_state import as_read
from git_teddy.index.rows import NO_AGENT, AgentRow, SessionIndex, SessionRow

GROUPINGS = ("agent", "channel", "status")


def agent_matches(wanted: str, agent: str) -> bool:
    """`dev` matches every version of dev (`dev@1.0`, `dev@2.1`, `dev`); `dev@1.0` only it."""
    return agent == wanted or ("@" not in wanted and agent.partition("@")[0] == wanted)


def as_of(index: SessionIndex, now: int, timeout: int) -> SessionIndex:
    """The index as read at `now`: an active session idle past `timeout` seconds reads as
    paused (spec 003), at its resume point. Never saved: the rows keep what the logs say."""
    idle = {}
    for session, row in index.sessions.items():
        state = as_read(row.status, row.resume_point, row.last_active, now, timeout)
        if state.timed_out:
            idle[session] = row._replace(status=state.status)
    if not idle:
        return index
    read = SessionIndex(index.prefix, index.generation, {**index.sessions, **idle})
    read.agent_lines, read._agents = index.agent_lines, index._agents
    read.timed_out = frozenset(idle)
    return read


def select(
    index: SessionIndex,
    status: str | None = None,
    agent: str | None = None,
    channel: str | None = None,
) -> list[SessionRow]:
    rows = [index.sessions[s] for s in sorted(index.sessions)]
    if status is not None:
        rows = [r for r in rows if r.status == status]
    if channel is not None:
        rows = [r for r in rows if r.channel == channel]
    if agent is not None:
        rows = [r for r in rows if any(agent_matches(agent, a) for a in r.participants.split())]
    return rows


@dataclass
class Totals:
    sessions: int = 0
    turns: int = 0
    executed: int = 0
    failures: int = 0
    tokens: int = 0
    cost: float = 0.0
    seconds: int = 0  # summed durations, of `timed` sessions
    timed: int = 0

    def add(self, share: SessionRow | AgentRow, duration: int | None) -> None:
        self.sessions += 1
        self.turns += share.turns
        self.executed += share.executed
        self.failures += share.failures
        self.tokens += share.tokens
        self.cost += share.cost
        if duration is not None:
            self.seconds += duration
            self.timed += 1

    @property
    def failure_rate(self) -> float | None:
        """Failed turns among the turns that ran."""
        return self.failures / self.executed if self.executed else None

    @property
    def average_duration(self) -> float | None:
        return self.seconds / self.timed if self.timed else None

    def as_json(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "turns": self.turns,
            "executed": self.executed,
            "failures": self.failures,
            "failure_rate": self.failure_rate,
            "tokens": self.tokens,
            "cost": round(self.cost, 6),
            "average_duration": self.average_duration,
        }


def totals(rows: Iterable[SessionRow]) -> Totals:
    result = Totals()
    for row in rows:
        result.add(row, row.duration)
    return result


def grouped(index: SessionIndex, rows: Iterable[SessionRow], by: str) -> dict[str, Totals]:
    """Totals per channel, status or agent. By agent, each agent's turns, tokens, cost and
    failures are its own, and a session counts once under each of its agents (with its
    whole duration); sessions without turns are grouped under NO_AGENT."""
    groups: dict[str, Totals] = {}
    agents = index.agents if by == "agent" else {}
    for row in rows:
        if by != "agent":
            key = row.channel if by == "channel" else row.status
            groups.setdefault(key, Totals()).add(row, row.duration)
            continue
        shares = agents.get(row.id) or []
        if not shares:
            groups.setdefault(NO_AGENT, Totals()).add(row, row.duration)
        for share in shares:
            groups.setdefault(share.agent, Totals()).add(share, row.duration)
    return dict(sorted(groups.items()))
