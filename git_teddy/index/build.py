"""Rows from session logs (pure): a session as read from git (SessionFacts) gives its row and
its agents' shares, and an index with some sessions read again gives the next generation."""

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from git_teddy.artifacts.names import MAIN_BRANCH
from git_teddy.artifacts.session_state import optional_str, session_state
from git_teddy.index.rows import NO_AGENT, AgentRow, SessionIndex, SessionRow, tips_cell

if TYPE_CHECKING:
    from git_teddy.artifacts.sessionlog.model import Phase


@dataclass(frozen=True)
class BranchLog:
    """What one branch says of its session: the frontmatter and phases of its `session.md`
    (read tolerantly), and its turn folders (the turns `show` counts, subagents' too)."""

    meta: Mapping[str, Any]
    phases: Sequence["Phase"] = ()
    turn_folders: frozenset[str] = frozenset()


@dataclass(frozen=True)
class SessionFacts:
    """A session as read from git, once, for its row."""

    id: str
    tips: Mapping[str, str]  # branch -> the commit it was read at
    current: str  # the branch it continues on
    logs: Mapping[str, BranchLog]  # by branch
    base_snapshot: str | None
    root_time: str  # the start, for a log that does not say
    last_active: str
    author: str = ""  # the first commit's author, "Name <email>"


@dataclass
class _Share:
    turns: int = 0
    executed: int = 0
    failures: int = 0
    tokens: int = 0
    cost: float = 0.0


def build_rows(facts: SessionFacts, generation: int) -> tuple[SessionRow, list[AgentRow]]:
    """A session's row and its agents' shares. A session with conversation branches has a
    log per branch: metadata come from the branch it continues on, turns from all of them
    (each turn once: a turn's name is unique in its session)."""
    ordered = sorted(facts.logs, key=lambda b: (b != facts.current, b != MAIN_BRANCH, b))
    logs = [facts.logs[branch] for branch in ordered]
    meta = logs[0].meta
    phases = list({p.turn: p for log in reversed(logs) for p in log.phases}.values())
    subagents = list({s["session"]: s for log in reversed(logs) for s in _subagents(log)}.values())
    shares = agent_shares(facts.id, phases, subagents)
    # Every turn folder, as `show` counts: a subagent's turns are folders, not phases of
    # the log that invoked it. A log without folders read (an older index) counts phases.
    folders = {branch: facts.logs[branch].turn_folders for branch in ordered}
    state = session_state(meta, facts.root_time, folders, facts.current, len(phases))
    started = state.started
    ended = optional_str(meta.get("ended"))
    participants = _unique(
        [p for log in logs for p in _strings(log.meta.get("participants"))]
        + [share.agent for share in shares]
    )
    row = SessionRow(
        id=facts.id,
        status=state.status,
        started=started,
        ended=ended,
        channel=state.channel,
        participants=" ".join(participants),
        model=optional_str(meta.get("model")),
        tokens=sum(s.tokens for s in shares) if shares else _int(meta.get("tokens_used")),
        cost=round(sum(s.cost for s in shares), 6),
        turns=state.turns,
        executed=sum(s.executed for s in shares),
        failures=sum(s.failures for s in shares),
        duration=duration_seconds(started, ended or _latest(p.time for p in phases)),
        branch=facts.current,
        base_snapshot=facts.base_snapshot,
        last_active=facts.last_active,
        parent_session=optional_str(meta.get("parent_session")),
        resume_point=state.resume_point,
        tips=tips_cell(facts.tips),
        gen=generation,
        title=min(phases, key=lambda p: p.turn).title if phases else "",  # turn 01 first
        author=facts.author.partition(" <")[0],
    )
    return row, shares


def agent_shares(
    session: str, phases: Sequence["Phase"], subagents: Sequence[Mapping[str, Any]]
) -> list[AgentRow]:
    """Each turn counts for the agent that ran it; a subagent's turns, failures, tokens and
    cost (its turns follow the turn that invoked it, in its own log) count for the subagent."""
    shares: dict[str, _Share] = {}
    for phase in phases:
        share = shares.setdefault(phase.agent, _Share())
        status = phase.status.lower()
        share.turns += 1
        share.executed += status != "planned"
        share.failures += status == "failure"
        share.tokens += phase.tokens or 0
        share.cost += phase.cost or 0.0
    for sub in subagents:
        share = shares.setdefault(str(sub.get("agent") or NO_AGENT), _Share())
        share.turns += _int(sub.get("turns"))
        share.executed += _int(sub.get("executed"))
        share.failures += _int(sub.get("failures"))
        share.tokens += _int(sub.get("tokens"))
        share.cost += _float(sub.get("cost"))
    return [
        AgentRow(session, agent, s.turns, s.executed, s.failures, s.tokens, round(s.cost, 6))
        for agent, s in shares.items()
    ]


def _subagents(log: BranchLog) -> list[Mapping[str, Any]]:
    entries = log.meta.get("subagents")
    if not isinstance(entries, list):
        return []
    return [e for e in entries if isinstance(e, Mapping) and e.get("session")]


def duration_seconds(start: str | None, end: str | None) -> int | None:
    try:
        seconds = (
            datetime.fromisoformat(str(end)) - datetime.fromisoformat(str(start))
        ).total_seconds()
    except (TypeError, ValueError):
        return None  # no end yet, or times git-teddy did not write
    return max(0, round(seconds))


def _latest(times: Iterable[str]) -> str | None:
    parsed = []
    for text in times:
        with contextlib.suppress(ValueError):
            parsed.append((datetime.fromisoformat(text), text))
    try:
        return max(parsed)[1] if parsed else None
    except TypeError:  # times with and without a zone: no order, no duration
        return None


def _int(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 0


def _float(value: object) -> float:
    try:
        return float(str(value))
    except ValueError:
        return 0.0  # unknown (None) or not a number: nothing to add


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


def updated(
    index: SessionIndex, facts: Mapping[str, SessionFacts], vanished: Iterable[str]
) -> SessionIndex:
    """The next generation of the index: sessions read again (`facts`) get new rows,
    vanished sessions lose theirs, every other row is kept as it was."""
    new = SessionIndex(index.prefix, index.generation + 1, dict(index.sessions))
    agents = new._agents = dict(index.agents)
    for session in vanished:
        new.sessions.pop(session, None)
        agents.pop(session, None)
    for session, session_facts in facts.items():
        new.sessions[session], agents[session] = build_rows(session_facts, new.generation)
    return new
