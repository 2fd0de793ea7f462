"""Plain-text and JSON views of sessions and turns for the CLI (pure)."""

import shlex
from dataclasses import asdict
from typing import Any

from git_teddy.artifacts.folder import (
    PLAN,
    REPORT,
    SYSTEM_PROMPT,
    TURN_CONTEXT,
    TURN_RECORD,
    USER_PROMPT,
    cut_note,
)
from git_teddy.artifacts.names import MAIN_BRANCH
from git_teddy.gitstore.changes import CutBlob
from git_teddy.session.models import SessionSummary, TurnCommit


def _short(sha: str | None) -> str:
    return sha[:10] if sha else "-"


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def _turn_rows(turns: list[TurnCommit], figures: bool = False) -> list[list[str]]:
    """The turn table; with `figures`, each turn's tokens and cost too."""
    header = ["TURN", "BRANCH", "PHASE", "STATUS", "AGENT"]
    rows = [[*header, *(["TOKENS", "COST"] if figures else []), "SNAPSHOT"]]
    for t in turns:
        name = t.turn if t.branch == MAIN_BRANCH else f"└ {t.turn}"
        row = [name, t.branch, t.phase or "-", t.status or "-", t.agent or "-"]
        if figures:
            row += [tokens_cell(t), cost_cell(t.cost)]
        rows.append([*row, _short(t.snapshot)])
    return rows


def _landed_lines(turns: list[TurnCommit]) -> list[str]:
    """`turn 01 landed in 1a2b3c4d5e6f`: the user's commits that took each turn's result."""
    return [
        f"turn {t.turn} landed in {', '.join(_short(c) for c in t.landed_in)}"
        for t in turns
        if t.landed_in
    ]


def tokens_cell(turn: TurnCommit) -> str:
    """`1,200 in / 300 out`; `-` when the turn's model said nothing (a plan from a file)."""
    if turn.tokens_in is None and turn.tokens_out is None:
        return "-"
    count = [f"{n:,}" if n is not None else "?" for n in (turn.tokens_in, turn.tokens_out)]
    return f"{count[0]} in / {count[1]} out"


def cost_cell(cost: float | None) -> str:
    """A known cost in dollars; an unknown one (no price for the model) says so, as $0.0000
    would claim the turn was free."""
    return "unknown" if cost is None else f"${cost:.4f}"


def status_line(summary: SessionSummary) -> str:
    """`paused at turn 03 (idle since ...; resume with ...)` for a paused session."""
    if summary.status != "paused" or not summary.resume_point:
        return summary.status
    why = f"idle since {summary.last_active}; " if summary.timed_out else ""
    return (
        f"paused at turn {summary.resume_point} "
        f"({why}resume with: git teddy resume {shlex.quote(summary.id)})"
    )


def session_text(summary: SessionSummary, turns: list[TurnCommit], main_ref: str) -> str:
    lines = [
        f"session   {summary.id}",
        f"status    {status_line(summary)}",
        f"started   {summary.started}",
        f"channel   {summary.channel}",
        f"branches  {', '.join(summary.branches)}",
        f"base      {_short(summary.base_snapshot)}",
        f"turns     {summary.turns}",
        f"git log   {main_ref.removeprefix('refs/heads/')}",
    ]
    if turns:
        lines += ["", _table(_turn_rows(turns))]
        landed = _landed_lines(turns)
        lines += ["", *landed] if landed else []
    return "\n".join(lines)


def turn_graph(session: str, turns: list[TurnCommit], branches: dict[str, str]) -> str:
    """Turns ordered by depth; turns of conversation branches indented under their fork."""
    if not turns:
        return f"session {session}: no turns yet (branches: {', '.join(sorted(branches))})"
    landed = _landed_lines(turns)
    tail = "\n\n" + "\n".join(landed) if landed else ""
    return f"session {session}\n" + _table(_turn_rows(turns, figures=True)) + tail


def turn_json(
    session: str, turn: str, commits: list[TurnCommit], files: dict[str, bytes]
) -> dict[str, Any]:
    latest = asdict(commits[-1]) if commits else {}
    return {
        **latest,
        "session": session,
        "turn": turn,
        "commits": [asdict(c) for c in commits],
        "files": {name: shown_text(data) for name, data in sorted(files.items())},
    }


# A turn's files in the order a reviewer reads them: what was asked, what was planned,
# what happened, then the rest; the context the model got (thousands of lines) comes last.
REVIEW_ORDER = (USER_PROMPT, PLAN, REPORT, TURN_RECORD, TURN_CONTEXT)


def is_context_file(name: str) -> bool:
    """The turn's context as the model got it: `_context.log` (and a branch's copies of
    the original's, `_context.NN.log`) and the agent's system prompt."""
    return name.startswith("_context") or name == SYSTEM_PROMPT


def _review_key(name: str) -> tuple[int, int, str]:
    known = REVIEW_ORDER.index(name) if name in REVIEW_ORDER else len(REVIEW_ORDER)
    return (is_context_file(name), known, name)


def turn_text(
    session: str,
    turn: str,
    commits: list[TurnCommit],
    files: dict[str, bytes],
    with_context: bool = False,
) -> str:
    """A turn for reading: its commits, then its files in reviewer order (REVIEW_ORDER);
    the context files only `with_context`, else a line naming them and how to see them."""
    lines = [f"turn {session}/{turn}"]
    for c in commits:
        lines.append(
            f"  {c.phase or '?':6} {c.status or '-':10} commit {_short(c.commit)} "
            f"snapshot {_short(c.snapshot)}"
        )
    names = sorted(files, key=_review_key)
    left = [n for n in names if is_context_file(n)] if not with_context else []
    for name in names:
        if name not in left:
            lines += ["", f"==> {name} <==", shown_text(files[name]).rstrip("\n")]
    if left:
        how = f"git teddy show {shlex.quote(f'{session}/{turn}')} --context"
        lines += ["", f"(the context is not shown: {', '.join(left)}; to see it: {how})"]
    return "\n".join(lines)


def shown_text(data: bytes) -> str:
    """A session file's text as shown; one read cut ends with the mark saying so."""
    text = data.decode("utf-8", "replace")
    return text + cut_note(data.size, len(data)) if isinstance(data, CutBlob) else text
