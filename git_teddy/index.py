"""The session index (DESIGN.md sections 2 and 5): one row per session in
`<git-common-dir>/teddy/index.toon`, so that `git teddy list` and `git teddy stats` answer
from one file instead of reading every session's `session.md`.

The file is TOON (toon-format) and derived state: never pushed, rebuilt from refs at will.

    format: teddy-index/1
    prefix: teddy/
    generation: 7
    sessions[2]{id,status,started,...,tips,gen}:
      20261126-auth,active,"2026-11-26T12:00:00+00:00",...,main=4f2c...,7
      ...
    agents[3]{session,agent,turns,executed,failures,tokens,cost}:
      20261126-auth,pathfinder@1.0,2,2,1,1200,0.0045
      ...

Freshness: each query lists the session refs (one `git for-each-ref`) and compares every
session's branch tips with the `tips` its row was built from. Only sessions whose tips moved,
that appeared or vanished (or whose current branch changed) are read again, and the file is
rewritten atomically. `generation` counts rewrites; a row's `gen` is the generation that last
read its session. A file that does not read back (corrupt, another format) is rebuilt.

A warm query must stay well under a second over 10,000 sessions, so nothing heavy is imported
at load time: the TOON writer, the session log's pydantic models and dulwich are imported
only when a session has to be read. Rows are read back by a reader specialised for the tables
written here (toon-format's general decoder needs about 0.3 s per 10,000 rows: a whole
query's budget), column by column; tests check it against toon-format. The agents table is
decoded only by queries that need it (`stats --group-by agent`) and by updates.
"""

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from git_teddy.config import Settings
from git_teddy.errors import TeddyError
from git_teddy.gitstore import refs_fast
from git_teddy.session.names import MAIN_BRANCH, is_turn_name

if TYPE_CHECKING:
    from git_teddy.gitstore.repo import GitRepo
    from git_teddy.sessionlog.model import Phase

FORMAT = "teddy-index/1"
INDEX_FILE = "index.toon"
SESSION_LOG = "session.md"
STATUSES = ("active", "paused", "completed")
GROUPINGS = ("agent", "channel", "status")
NO_AGENT = "(none)"  # the agent group of sessions without turns


# ---- rows ----------------------------------------------------------------------------------


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
    tips: str  # `branch=commit ...`: the branch tips the row was built from
    gen: int  # the index generation that last read this session


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
    _agents: dict[str, list[AgentRow]] | None = None

    @property
    def agents(self) -> dict[str, list[AgentRow]]:
        """session -> its agents' shares (UnreadableIndex if the table does not decode)."""
        if self._agents is None:
            self._agents = {}
            for share in _read_rows(AgentRow, None, self.agent_lines or []):
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


# ---- reading and writing the file (TOON) ---------------------------------------------------


class UnreadableIndex(ValueError):
    """The file is not an index this version writes: it is rebuilt."""


_JSON = json.JSONDecoder(strict=False)  # TOON's escapes are a subset of JSON's
_TABLE = re.compile(r"(?P<key>[a-z]+)(?:\[(?P<count>\d+)\]\{(?P<fields>[a-z_,]+)\}:|: \[\])")
_CELLS = re.compile(r'(?:^|,)("(?:[^"\\]|\\.)*"|[^,"]*)')
Column = list[Any]


def unquote(cell: str) -> str:
    """A cell's string: quoted cells are JSON-like string literals."""
    if cell[:1] != '"':
        return cell
    return cell[1:-1] if "\\" not in cell else str(_JSON.decode(cell))


def split_cells(line: str, width: int) -> list[str]:
    """The cells of a table row, quoted ones still quoted (so that "null" stays a string).
    Commas inside quotes are the only way a plain split can give more than `width` cells."""
    cells = line.split(",")
    if len(cells) == width:
        return cells
    cells = _CELLS.findall(line)
    if len(",".join(cells)) != len(line):
        raise UnreadableIndex(f"not a row of cells: {line!r}")
    return cells


# Whole columns are converted at once: over 10,000 rows, a call per cell is what costs.
def _text_column(column: Sequence[str]) -> Column:
    joined = "".join(column)
    if '"' not in joined:
        return list(column)
    if "\\" not in joined:  # no escapes: a quoted cell is its text between the quotes
        return [c[1:-1] if c[:1] == '"' else c for c in column]
    return [unquote(c) for c in column]


def _optional_text_column(column: Sequence[str]) -> Column:
    # "null" is None, and stays "null" only when quoted: test before unquoting.
    nulls = [c == "null" for c in column]
    return [None if null else c for null, c in zip(nulls, _text_column(column), strict=True)]


def _optional_int_column(column: Sequence[str]) -> Column:
    return [None if c == "null" else int(c) for c in column]


_CONVERTERS: dict[object, Callable[[Sequence[str]], Column]] = {
    str: _text_column,
    str | None: _optional_text_column,
    int: lambda column: list(map(int, column)),
    int | None: _optional_int_column,
    float: lambda column: list(map(float, column)),
}
_TABLES: dict[str, Any] = {"sessions": SessionRow, "agents": AgentRow}


def _read_rows(row_type: Any, fields: str | None, lines: list[str]) -> list[Any]:
    """A table's rows. When no quoted cell holds a comma (the usual case), one split of the
    whole table gives every cell, and each column is a slice of them."""
    if fields is not None and fields != ",".join(row_type._fields):
        raise UnreadableIndex(f"columns {fields} are not {row_type.__name__}'s")
    if not lines:
        return []
    kinds = list(row_type.__annotations__.values())
    width = len(kinds)
    cells = ",".join(lines).split(",")
    if len(cells) == width * len(lines):
        columns = [cells[i::width] for i in range(width)]
        if any(cell[:2] != "  " for cell in columns[0]):
            raise UnreadableIndex(f"a row of {row_type.__name__} without its indent")
        columns[0] = [cell[2:] for cell in columns[0]]
    else:
        if any(line[:2] != "  " for line in lines):
            raise UnreadableIndex(f"a row of {row_type.__name__} without its indent")
        rows = [split_cells(line[2:], width) for line in lines]
        columns = [list(column) for column in zip(*rows, strict=True)]
        if len(columns) != width:
            raise UnreadableIndex(f"rows of {len(columns)} cells, not {width}")
    converted = [_CONVERTERS[kind](column) for kind, column in zip(kinds, columns, strict=True)]
    return list(map(partial(tuple.__new__, row_type), zip(*converted, strict=True)))


def decode_index(text: str) -> SessionIndex:
    """The index a file holds; UnreadableIndex (or ValueError) if it is not one."""
    lines = text.split("\n")
    scalars: dict[str, str] = {}
    tables: dict[str, tuple[str | None, list[str]]] = {}
    pos = 0
    while pos < len(lines):
        line = lines[pos]
        pos += 1
        table = _TABLE.fullmatch(line)
        if table is None:
            key, sep, value = line.partition(": ")
            if sep:
                scalars[key] = value
            elif line:
                raise UnreadableIndex(f"unexpected line {line!r}")
            continue
        count = int(table["count"] or 0)
        if table["key"] not in _TABLES or pos + count > len(lines):
            raise UnreadableIndex(f"bad table {line!r}")
        tables[table["key"]] = (table["fields"], lines[pos : pos + count])
        pos += count
    if unquote(scalars.get("format", "")) != FORMAT or set(tables) != set(_TABLES):
        raise UnreadableIndex("not an index of this format")
    index = SessionIndex(unquote(scalars["prefix"]), int(scalars["generation"]))
    index.sessions = {row.id: row for row in _read_rows(SessionRow, *tables["sessions"])}
    agent_fields, index.agent_lines = tables["agents"]
    if agent_fields is not None and agent_fields != ",".join(AgentRow._fields):
        raise UnreadableIndex(f"columns {agent_fields} are not AgentRow's")
    return index


def encode_index(index: SessionIndex) -> str:
    from toon_format import encode  # only a writer pays for importing it

    ids = sorted(index.sessions)
    data = {
        "format": FORMAT,
        "prefix": index.prefix,
        "generation": index.generation,
        "sessions": [index.sessions[s]._asdict() for s in ids],
        "agents": [share._asdict() for s in ids for share in index.agents.get(s, [])],
    }
    return str(encode(data)) + "\n"


def load(path: Path, prefix: str) -> SessionIndex:
    """The index at `path`, or an empty one when it is missing, unreadable or was made for
    another ref prefix (then every session is read again: a rebuild, silently)."""
    try:
        index = decode_index(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, IndexError):
        return SessionIndex(prefix)
    return index if index.prefix == prefix else SessionIndex(prefix, index.generation)


def save(path: Path, index: SessionIndex) -> None:
    """Write atomically: a reader sees the old file or the new one, never half of one."""
    import tempfile  # a writer's import

    text = encode_index(index)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".index-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


# ---- which sessions to read again (pure) ---------------------------------------------------


def group_session_refs(refs: Mapping[str, str], prefix: str) -> dict[str, dict[str, str]]:
    """session id -> branch -> tip, grouped as SessionStore._all_branches does: sessions
    fetched from a remote (`refs/remotes/<remote>/<prefix>...`) count too, and a local
    branch wins over a fetched one."""
    sessions: dict[str, dict[str, str]] = {}
    for name in sorted((n for n in refs if n.startswith("refs/remotes/")), reverse=True):
        _remote, _, rest = name.removeprefix("refs/remotes/").partition("/")
        if rest.startswith(prefix):
            _add_branch(sessions, rest.removeprefix(prefix), refs[name])
    local = f"refs/heads/{prefix}"
    start = len(local)
    for name, tip in refs.items():
        if name.startswith(local):
            session, _, branch = name[start:].partition("/")
            if branch and "/" not in branch:
                sessions.setdefault(session, {})[branch] = tip
    return sessions


def _add_branch(sessions: dict[str, dict[str, str]], path: str, tip: str) -> None:
    session, _, branch = path.partition("/")
    if branch and "/" not in branch:
        sessions.setdefault(session, {})[branch] = tip


def current_branch(branches: Mapping[str, str], marker: str | None) -> str:
    """The branch a session continues on (as SessionStore.current_branch decides): the one
    last chosen here when it still exists, else main (else the first, for a session known
    only by other branches)."""
    if marker in branches:
        return str(marker)
    return MAIN_BRANCH if MAIN_BRANCH in branches or not branches else min(branches)


def stale_sessions(
    index: SessionIndex, sessions: Mapping[str, Mapping[str, str]], currents: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    """Sessions to read again (new, moved, or continuing on another branch) and sessions
    whose refs are gone."""
    rows = index.sessions
    changed = [
        session
        for session, tips in sessions.items()
        if session not in rows
        or rows[session].tips != tips_cell(tips)
        or rows[session].branch != currents[session]
    ]
    return changed, [session for session in index.sessions if session not in sessions]


# ---- rows from session logs (pure) ---------------------------------------------------------


@dataclass(frozen=True)
class BranchLog:
    """What one branch says of its session: the frontmatter and phases of its `session.md`
    (read tolerantly), and its turn folders (which count when the log has no phases)."""

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
    started = _optional_str(meta.get("started")) or facts.root_time
    ended = _optional_str(meta.get("ended"))
    participants = _unique(
        [p for log in logs for p in _strings(log.meta.get("participants"))]
        + [share.agent for share in shares]
    )
    turns = len(phases) if phases else len(frozenset().union(*(g.turn_folders for g in logs)))
    row = SessionRow(
        id=facts.id,
        status=_optional_str(meta.get("status")) or "unknown",
        started=started,
        ended=ended,
        channel=_optional_str(meta.get("channel")) or "",
        participants=" ".join(participants),
        model=_optional_str(meta.get("model")),
        tokens=sum(s.tokens for s in shares) if shares else _int(meta.get("tokens_used")),
        cost=round(sum(s.cost for s in shares), 6),
        turns=turns,
        executed=sum(s.executed for s in shares),
        failures=sum(s.failures for s in shares),
        duration=duration_seconds(started, ended or _latest(p.time for p in phases)),
        branch=facts.current,
        base_snapshot=facts.base_snapshot,
        last_active=facts.last_active,
        parent_session=_optional_str(meta.get("parent_session")),
        tips=tips_cell(facts.tips),
        gen=generation,
    )
    return row, shares


def agent_shares(
    session: str, phases: Sequence["Phase"], subagents: Sequence[Mapping[str, Any]]
) -> list[AgentRow]:
    """Each turn counts for the agent that ran it; a subagent's tokens (its turns are part
    of the turn that invoked it) count for the subagent."""
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
        shares.setdefault(str(sub.get("agent") or NO_AGENT), _Share()).tokens += _int(
            sub.get("tokens")
        )
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


def _optional_str(value: object) -> str | None:
    return None if value is None or value == "" else str(value)


def _int(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 0


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


# ---- queries (pure) ------------------------------------------------------------------------


def agent_matches(wanted: str, agent: str) -> bool:
    """`dev` matches every version of dev (`dev@1.0`, `dev@2.1`, `dev`); `dev@1.0` only it."""
    return agent == wanted or ("@" not in wanted and agent.partition("@")[0] == wanted)


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


# ---- views (pure) --------------------------------------------------------------------------


def session_json(row: SessionRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "status": row.status,
        "started": row.started,
        "ended": row.ended,
        "channel": row.channel,
        "participants": row.participants.split(),
        "model": row.model,
        "turns": row.turns,
        "executed": row.executed,
        "failures": row.failures,
        "tokens_used": row.tokens,
        "cost": row.cost,
        "duration": row.duration,
        "branches": branch_names(row),
        "current_branch": row.branch,
        "base_snapshot": row.base_snapshot,
        "last_active": row.last_active,
        "parent_session": row.parent_session,
    }


def table(rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns two spaces apart (one format string: fast over many rows)."""
    widths = [max(map(len, column)) for column in zip(*rows, strict=True)]
    line = "  ".join(f"{{:<{width}}}" for width in widths[:-1]) + "  {}"
    return "\n".join(line.format(*row).rstrip() for row in rows)


def list_table(rows: Sequence[SessionRow]) -> str:
    """SESSION STATUS STARTED TURNS, and PARTICIPANTS when a listed session has any."""
    header = ["SESSION", "STATUS", "STARTED", "TURNS"]
    if not any(row.participants for row in rows):
        return table([header, *([r.id, r.status, r.started, str(r.turns)] for r in rows)])
    lines = [[*header, "PARTICIPANTS"]]
    for r in rows:
        agents = r.participants.replace(" ", ", ") or "-"
        lines.append([r.id, r.status, r.started, str(r.turns), agents])
    return table(lines)


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    whole = round(seconds)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours:02d}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def format_rate(total: Totals) -> str:
    rate = total.failure_rate
    return "-" if rate is None else f"{rate:.1%}"


def stats_text(overall: Totals, groups: Mapping[str, Totals] | None, by: str | None) -> str:
    lines = [
        f"sessions      {overall.sessions}",
        f"turns         {overall.turns} ({overall.executed} executed)",
        f"failure rate  {format_rate(overall)}"
        + (
            f" ({overall.failures} of {overall.executed} executed turns)"
            if overall.executed
            else ""
        ),
        f"tokens        {overall.tokens}",
        f"cost          ${overall.cost:.4f}",
        f"avg duration  {format_duration(overall.average_duration)}"
        + (f" (over {overall.timed} session{'s' * (overall.timed != 1)})" if overall.timed else ""),
    ]
    if groups and by:
        header = [by.upper(), "SESSIONS", "TURNS", "FAILED", "FAILURE RATE", "TOKENS", "COST"]
        rows = [[*header, "AVG DURATION"]]
        for name, t in groups.items():
            rows.append(
                [
                    name,
                    str(t.sessions),
                    str(t.turns),
                    str(t.failures),
                    format_rate(t),
                    str(t.tokens),
                    f"${t.cost:.4f}",
                    format_duration(t.average_duration),
                ]
            )
        lines += ["", table(rows)]
    return "\n".join(lines)


# ---- reading sessions from git (I/O, only for sessions that changed) -----------------------


def read_facts(
    location: refs_fast.Location,
    sessions: Mapping[str, Mapping[str, str]],
    currents: Mapping[str, str],
) -> dict[str, SessionFacts]:
    if not sessions:
        return {}
    from git_teddy.gitstore.repo import GitRepo

    repo = GitRepo.discover(location.cwd)
    return {s: read_session(repo, s, tips, currents[s]) for s, tips in sessions.items()}


def read_session(
    repo: "GitRepo", session: str, tips: Mapping[str, str], current: str
) -> SessionFacts:
    from git_teddy.session.models import iso_time
    from git_teddy.session.trailers import parse_trailers

    commits = {branch: repo.read_commit(tip) for branch, tip in tips.items()}
    logs = {branch: read_branch_log(repo, commit.tree) for branch, commit in commits.items()}
    *_, root = repo.first_parent_history(tips[current])
    last = max(commits.values(), key=lambda c: c.timestamp)
    return SessionFacts(
        id=session,
        tips=dict(tips),
        current=current,
        logs=logs,
        base_snapshot=parse_trailers(root.message).get("Teddy-Snapshot"),
        root_time=iso_time(root.timestamp, root.tz_offset),
        last_active=iso_time(last.timestamp, last.tz_offset),
    )


def read_branch_log(repo: "GitRepo", tree: str) -> BranchLog:
    data = repo.read_file(tree, SESSION_LOG)
    meta, phases = parse_log_leniently(data.decode("utf-8", "replace") if data else "")
    if phases:
        return BranchLog(meta, phases)
    folders = frozenset(
        n for n, is_dir in repo.list_dir(tree).items() if is_dir and is_turn_name(n)
    )
    return BranchLog(meta, phases, folders)


def parse_log_leniently(text: str) -> tuple[dict[str, Any], list["Phase"]]:
    """Frontmatter and phases of a `session.md`. A log that is not one (edited by hand, or
    written before logs had phases) still gives what its frontmatter says."""
    import yaml

    from git_teddy.session import frontmatter
    from git_teddy.sessionlog.parse import parse_log

    try:
        log = parse_log(text)
        return log.meta.model_dump(mode="json"), list(log.phases)
    except (TeddyError, yaml.YAMLError):
        pass
    try:
        return frontmatter.parse(text)[0], []
    except yaml.YAMLError:
        return {}, []


def read_current_branches(
    derived: Path, sessions: Mapping[str, Mapping[str, str]]
) -> dict[str, str]:
    """Each session's current branch. SessionStore keeps the choice in
    `<derived>/sessions/<id>/branch`; only sessions with several branches have a choice, so
    only their files are read."""
    currents = {}
    for session, branches in sessions.items():
        marker = None
        if len(branches) > 1:
            with contextlib.suppress(OSError):
                marker = (derived / "sessions" / session / "branch").read_text().strip()
        currents[session] = current_branch(branches, marker)
    return currents


# ---- the query's entry point ---------------------------------------------------------------


@dataclass(frozen=True)
class Refreshed:
    index: SessionIndex
    reread: int  # sessions read from git by this refresh
    path: Path


def agents_readable(index: SessionIndex) -> bool:
    try:
        index.agents  # noqa: B018 (decoded now, so that a broken table means a rebuild)
    except ValueError:
        return False
    return True


def refresh(cwd: Path | None = None, rebuild: bool = False, need_agents: bool = False) -> Refreshed:
    """The index, brought up to date with the refs (or rebuilt from them). `need_agents`:
    the caller reads the agents table, so it is decoded here (and rebuilt if broken)."""
    location = refs_fast.locate(cwd)
    prefix = Settings.from_env(refs_fast.read_config(location, "teddy")).ref_prefix
    refs = refs_fast.list_refs(location, f"refs/heads/{prefix.rstrip('/')}", "refs/remotes")
    sessions = group_session_refs(refs, prefix)
    derived = location.common_dir / "teddy"
    path = derived / INDEX_FILE
    index = load(path, prefix)
    if rebuild or (need_agents and not agents_readable(index)):
        index = SessionIndex(prefix, index.generation)
    currents = read_current_branches(derived, sessions)
    changed, vanished = stale_sessions(index, sessions, currents)
    if (changed or vanished) and not agents_readable(index):
        index = SessionIndex(prefix, index.generation)  # an update rewrites every share
        changed, vanished = stale_sessions(index, sessions, currents)
    if rebuild or changed or vanished:
        facts = read_facts(location, {s: sessions[s] for s in changed}, currents)
        index = updated(index, facts, vanished)
        with contextlib.suppress(OSError):  # a read-only repository still gets its answer
            save(path, index)
    return Refreshed(index, len(changed), path)
