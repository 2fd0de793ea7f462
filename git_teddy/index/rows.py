"""The index's rows: a session's row, its agents' shares, and the index that holds them."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from git_teddy.artifacts.names import MAIN_BRANCH
from git_teddy.index.toontable import read_rows

STATUSES = ("active", "paused", "completed")
NO_AGENT = "(none)"  # the agent group of sessions without turns


class SessionRow(NamedTuple):
    """What `list` and `stats` need of one session."""

    id: str
    status: str
    started: str
    ended: str | None
    channel: str
    participants: str  # name@version, space-separated: a table cell holds one value
    model: str | None
    tokens: int
    cost: float
    turns: int
    executed: int  # turns that ran: status other than planned
    failures: int  # turns whose status is failure
    duration: int | None  # seconds from started to ended, else to the last turn
    branch: str  # the branch the session continues on, whose log gave the metadata
    base_snapshot: str | None
    last_active: str
    parent_session: str | None
    resume_point: str | None  # the log's, else the current branch's last turn
    tips: str  # `branch=commit ...`: the branch tips the row was built from
    gen: int  # the index generation that last read this session
    title: str = ""  # the first turn's title (its plan's), "" before any turn
    author: str = ""  # who started it: the name of its first commit's author


class AgentRow(NamedTuple):
    """One agent's share of one session: the turns it ran, and its subagent work."""

    session: str
    agent: str
    turns: int
    executed: int
    failures: int
    tokens: int
    cost: float


@dataclass
class SessionIndex:
    prefix: str  # the ref prefix the sessions were found under
    generation: int = 0
    sessions: dict[str, SessionRow] = field(default_factory=dict)
    agent_lines: list[str] | None = None  # the agents table as read, until it is decoded
    timed_out: frozenset[str] = frozenset()  # sessions read as paused for being idle
    _agents: dict[str, list[AgentRow]] | None = None

    @property
    def agents(self) -> dict[str, list[AgentRow]]:
        """session -> its agents' shares (UnreadableIndex if the table does not decode)."""
        if self._agents is None:
            self._agents = {}
            for share in read_rows(AgentRow, None, self.agent_lines or []):
                self._agents.setdefault(share.session, []).append(share)
            self.agent_lines = None
        return self._agents


def tips_cell(branches: Mapping[str, str]) -> str:
    if len(branches) == 1:  # most sessions: no sorting, no generator
        ((branch, tip),) = branches.items()
        return f"{branch}={tip}"
    return " ".join(f"{branch}={tip}" for branch, tip in sorted(branches.items()))


def branch_names(row: SessionRow) -> list[str]:
    names = [tip.partition("=")[0] for tip in row.tips.split()]
    return sorted(names, key=lambda b: (b != MAIN_BRANCH, b))
