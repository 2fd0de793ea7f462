"""`git teddy list|stats|index`: questions over many sessions, answered from the session
index (the git_teddy.index package). Only the index's own imports are made here, so that a
query with an up-to-date index stays fast over thousands of sessions."""

from typing import Any

import click

from git_teddy.cli.pager import page_output
from git_teddy.cli.textio import echo_json
from git_teddy.gitstore import plumbing
from git_teddy.gitstore.layout import read_worktree_session
from git_teddy.index.query import GROUPINGS, grouped, select, totals
from git_teddy.index.refresh import refresh
from git_teddy.index.rows import STATUSES, SessionIndex
from git_teddy.index.views import Worktrees, list_table, session_json, stats_text
from git_teddy.printable import printable
from git_teddy.session import current
from git_teddy.session.refnames import branches_prefix


class BadOptionValue(click.UsageError):
    """A usage error (exit 2), worded like every other error: `error:` and `hint:` lines."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint  # cli.main prints it as the hint line


def check_choice(option: str, value: str | None, choices: tuple[str, ...]) -> None:
    if value is not None and value not in choices:
        raise BadOptionValue(
            f"{option} {value!r} is not one of {', '.join(choices)}",
            f"for example: {option} {choices[0]}",
        )


def check_name(option: str, value: str | None) -> None:
    if value is not None and not value.strip():
        raise BadOptionValue(f"{option} needs a value", f"for example: {option} dev")


@click.command("list")
@click.option(
    "--status", metavar="STATUS", help="Only sessions with this status: active, paused, completed."
)
@click.option(
    "--agent",
    metavar="NAME[@VERSION]",
    help="Only sessions this agent took part in (a name alone matches every version).",
)
@click.option("--channel", metavar="CHANNEL", help="Only sessions of this channel.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of sessions.")
@page_output
def list_sessions(
    status: str | None, agent: str | None, channel: str | None, as_json: bool
) -> None:
    """List sessions: id, status, start time, author, turns, cost, participants and title
    (the first turn's); `*` marks this worktree's current session (the one commands without
    -s work on), and WORKTREE names the worktrees each session is current in.

    Answered from the session index, brought up to date first (see `git teddy index`). The
    PARTICIPANTS column appears when a listed session has any; --json gives every figure."""
    check_choice("--status", status, STATUSES)
    check_name("--agent", agent)
    check_name("--channel", channel)
    index = refresh().index
    rows = select(index, status=status, agent=agent, channel=channel)
    held = _worktrees(index)
    if as_json:
        echo_json([session_json(row, row.id in index.timed_out, held) for row in rows])
    elif not index.sessions:
        click.echo("no sessions yet (start one with `git teddy new <name>`)")
    elif not rows:
        click.echo(f"no session matches (there are {len(index.sessions)}; see `git teddy list`)")
    else:
        click.echo(printable(list_table(rows, index.timed_out, held)))


def _worktrees(index: SessionIndex) -> Worktrees:
    """This worktree's current session and where each session is current (session.current).
    A worktree that recorded none is marked at the session its next command would take."""
    where = plumbing.locate()
    mine, held = current.marks(where.cwd, where.git_dir, where.common_dir, index.sessions)
    if mine is None and read_worktree_session(where.git_dir) is None:
        base = branches_prefix(index.prefix)
        local = {
            ref.removeprefix(base).partition("/")[0]
            for ref in plumbing.list_refs(where.cwd, base.rstrip("/"))
        }
        active = {s: _seconds(index.sessions[s].last_active) for s in local if s in index.sessions}
        mine = current.most_recent_free(active, held)
    return Worktrees(mine, {s: [str(folder) for folder in folders] for s, folders in held.items()})


def _seconds(iso: str) -> float:
    from datetime import datetime

    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return 0.0


@click.command()
@click.option(
    "--group-by",
    "group_by",
    metavar="agent|channel|status",
    help="Also give the figures per agent, channel or status.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@page_output
def stats(group_by: str | None, as_json: bool) -> None:
    """Tokens, cost, turns, failure rate and average duration over all sessions.

    Answered from the session index. The failure rate is failed turns among executed ones
    (a turn planned but not run is not executed); a session's duration runs from its start
    to its end, or to its last turn while it has not ended.

    With --group-by agent, each turn counts for the agent that ran it (its tokens, cost and
    failure) and a subagent's tokens for the subagent; a session counts once under each of
    its agents, so the groups' sessions can add up to more than the total. Sessions without
    turns are grouped under (none)."""
    check_choice("--group-by", group_by, GROUPINGS)
    index = refresh(need_agents=group_by == "agent").index
    rows = select(index)
    overall = totals(rows)
    groups = grouped(index, rows, group_by) if group_by else None
    if as_json:
        data: dict[str, Any] = {"overall": overall.as_json()}
        if groups is not None and group_by:
            data["group_by"] = group_by
            data["groups"] = [{group_by: k, **t.as_json()} for k, t in groups.items()]
        echo_json(data)
    else:
        click.echo(printable(stats_text(overall, groups, group_by)))


@click.command()
@click.option("--rebuild", is_flag=True, help="Forget the index and read every session again.")
def index(rebuild: bool) -> None:
    """Bring the session index up to date and say what it holds.

    `list` and `stats` update it themselves: only sessions whose branches moved are read
    again. It is the TOON file teddy/index.toon in the git common directory: local, never
    pushed, rebuilt from the session refs when missing or damaged."""
    done = refresh(rebuild=rebuild)
    count = len(done.index.sessions)
    if rebuild:
        click.echo(f"indexed {count} session(s) into {done.path}")
    else:
        click.echo(f"index up to date: {count} session(s), {done.reread} read again ({done.path})")
