"""What `list` and `stats` print (pure): a session as JSON, the tables and the stats text."""

from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple

from git_teddy.index.query import Totals
from git_teddy.index.rows import SessionRow, branch_names


class Worktrees(NamedTuple):
    """Which sessions worktrees work in (session.current): this worktree's current session,
    and the worktrees each session is current in."""

    mine: str | None = None
    where: Mapping[str, Sequence[str]] = {}


NO_WORKTREES = Worktrees()


def session_json(
    row: SessionRow, idle: bool = False, worktrees: Worktrees = NO_WORKTREES
) -> dict[str, Any]:
    return {
        "id": row.id,
        "current": row.id == worktrees.mine,
        "worktrees": list(worktrees.where.get(row.id, [])),
        "status": row.status,
        "resume_point": row.resume_point if row.status == "paused" else None,
        "timed_out": idle,
        "started": row.started,
        "ended": row.ended,
        "channel": row.channel,
        "title": row.title,
        "author": row.author,
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


def list_table(
    rows: Sequence[SessionRow], idle: Collection[str] = (), worktrees: Worktrees = NO_WORKTREES
) -> str:
    """SESSION STATUS STARTED AUTHOR TURNS COST, PARTICIPANTS when a listed session has any,
    WORKTREE when one is current in some worktree, then TITLE (the first turn's); `*` marks
    this worktree's current session, as `git branch` marks HEAD. A paused session's status
    says where it resumes, and `(idle)` when it timed out."""
    header = ["  SESSION", "STATUS", "STARTED", "AUTHOR", "TURNS", "COST"]
    cells = [[_marked(r.id, worktrees.mine), status_cell(r, r.id in idle)] for r in rows]
    for r, row_cells in zip(rows, cells, strict=True):
        row_cells += [r.started, r.author or "-", str(r.turns), cost_cell(r.cost, r.tokens)]
    if any(row.participants for row in rows):
        header.append("PARTICIPANTS")
        for r, row_cells in zip(rows, cells, strict=True):
            row_cells.append(r.participants.replace(" ", ", ") or "-")
    if any(r.id in worktrees.where for r in rows):
        header.append("WORKTREE")
        for r, row_cells in zip(rows, cells, strict=True):
            row_cells.append(", ".join(worktrees.where.get(r.id, [])) or "-")
    header.append("TITLE")
    for r, row_cells in zip(rows, cells, strict=True):
        row_cells.append(r.title or "-")
    return table([header, *cells])


def _marked(session: str, mine: str | None) -> str:
    return f"* {session}" if session == mine else f"  {session}"


def status_cell(row: SessionRow, idle: bool) -> str:
    if row.status != "paused" or not row.resume_point:
        return row.status
    return f"paused at {row.resume_point}" + (" (idle)" if idle else "")


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


def cost_cell(cost: float, tokens: int) -> str:
    """A summed cost, or `unknown` when tokens were spent and no model reported a price
    (the index counts an unknown cost as 0: $0.0000 would be a made-up figure)."""
    return "unknown" if tokens and not cost else f"${cost:.4f}"


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
        f"cost          {cost_cell(overall.cost, overall.tokens)}",
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
                    cost_cell(t.cost, t.tokens),
                    format_duration(t.average_duration),
                ]
            )
        lines += ["", table(rows)]
    return "\n".join(lines)
