"""Plain-text and JSON views of sessions and turns for the CLI (pure)."""

from typing import Any

from git_teddy.artifacts.names import MAIN_BRANCH
from git_teddy.session.models import SessionSummary, TurnCommit


def _short(sha: str | None) -> str:
    return sha[:10] if sha else "-"


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def _turn_rows(turns: list[TurnCommit]) -> list[list[str]]:
    rows = [["TURN", "BRANCH", "PHASE", "STATUS", "AGENT", "SNAPSHOT"]]
    for t in turns:
        name = t.turn if t.branch == MAIN_BRANCH else f"└ {t.turn}"
        rows.append(
            [name, t.branch, t.phase or "-", t.status or "-", t.agent or "-", _short(t.snapshot)]
        )
    return rows


def session_text(summary: SessionSummary, turns: list[TurnCommit], main_ref: str) -> str:
    lines = [
        f"session   {summary.id}",
        f"status    {summary.status}",
        f"started   {summary.started}",
        f"channel   {summary.channel}",
        f"branches  {', '.join(summary.branches)}",
        f"base      {_short(summary.base_snapshot)}",
        f"turns     {summary.turns}",
        f"git log   {main_ref.removeprefix('refs/heads/')}",
    ]
    if turns:
        lines += ["", _table(_turn_rows(turns))]
    return "\n".join(lines)


def turn_graph(session: str, turns: list[TurnCommit], branches: dict[str, str]) -> str:
    """Turns ordered by depth; turns of conversation branches indented under their fork."""
    if not turns:
        return f"session {session}: no turns yet (branches: {', '.join(sorted(branches))})"
    return f"session {session}\n" + _table(_turn_rows(turns))


def turn_json(
    session: str, turn: str, commits: list[TurnCommit], files: dict[str, bytes]
) -> dict[str, Any]:
    latest = commits[-1].model_dump() if commits else {}
    return {
        **latest,
        "session": session,
        "turn": turn,
        "commits": [c.model_dump() for c in commits],
        "files": {name: data.decode("utf-8", "replace") for name, data in sorted(files.items())},
    }


def turn_text(session: str, turn: str, commits: list[TurnCommit], files: dict[str, bytes]) -> str:
    lines = [f"turn {session}/{turn}"]
    for c in commits:
        lines.append(
            f"  {c.phase or '?':6} {c.status or '-':10} commit {_short(c.commit)} "
            f"snapshot {_short(c.snapshot)}"
        )
    for name, data in sorted(files.items()):
        text = data.decode("utf-8", "replace")
        lines += ["", f"==> {name} <==", text.rstrip("\n")]
    return "\n".join(lines)
