"""`git teddy new|show|log|saved|push|fetch|delete`: create, read, share and delete
sessions."""

import contextlib
import shlex
from dataclasses import asdict

import click

from git_teddy.artifacts.folder import SESSION_FILE_LIMIT
from git_teddy.cli.color import color_option
from git_teddy.cli.pager import page_output
from git_teddy.cli.textio import echo_json
from git_teddy.errors import TeddyError
from git_teddy.printable import printable
from git_teddy.session import current, views
from git_teddy.session.workspace import open_workspace
from git_teddy.settings import CHANNEL, IDLE_TIMEOUT, WORKTREE_DIR

NEW_SHOWN = 10  # new sessions a fetch names; the rest are counted


@click.command()
@click.argument("name")
@click.option(
    "--channel", help="Channel recorded in the session log (default: teddy.channel or 'cli')."
)
def new(name: str, channel: str | None) -> None:
    """Start a session NAME (kebab-case): snapshot the working tree, create its branch; it
    becomes this worktree's current session, which commands without -s work on."""
    ws = open_workspace()
    channel = channel or ws.settings.text(CHANNEL)
    session = ws.store.create_session(name, channel)
    current.record(ws.repo, session)  # this worktree works in it from now on, like HEAD
    click.echo(session)
    click.echo(
        f"branch: {ws.store.branch_ref(session, 'main').removeprefix('refs/heads/')}", err=True
    )


@click.command()
@click.argument("target", required=False, metavar="[SESSION[/TURN]]")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--context",
    "with_context",
    is_flag=True,
    help="With SESSION/TURN: also show the context the model got (_context.log, "
    "system_prompt.xml), after the rest.",
)
@color_option
@page_output
def show(target: str | None, as_json: bool, with_context: bool) -> None:
    """Show a session (default: this worktree's current one): its summary, its turns and its log
    (session.md, callouts formatted in a terminal); or, with SESSION/TURN, one turn's files
    in reviewer order: your message, the plan, the report, then the rest (the context the
    model got only with --context)."""
    ws = open_workspace()
    store = ws.store
    if target and "/" in target:
        ref = store.resolve_turn(target)
        files = store.turn_files(ref, SESSION_FILE_LIMIT)  # a larger file is shown cut
        commits = [c for c in store.turn_commits(ref.session) if c.turn == ref.turn]
        if as_json:
            echo_json(views.turn_json(ref.session, ref.turn, commits, files))
        else:
            text = views.turn_text(ref.session, ref.turn, commits, files, with_context)
            click.echo(printable(text))
        return
    from git_teddy.cli.color import use_color
    from git_teddy.cli.log_display import display_log
    from git_teddy.session.sessionlogs import embedded_logs

    session = store.resolve_session(target)
    summary = store.summary(session, ws.settings.duration(IDLE_TIMEOUT))
    turns = store.turns(session)
    try:
        log = store.read_log(session)
    except TeddyError as error:  # a hand-edited log: the rest is still worth showing
        click.echo(f"warning: {error.message}", err=True)
        log = None
    if as_json:
        turn_list = [asdict(t) for t in turns]
        log_data = log.model_dump() if log else None
        echo_json({**asdict(summary), "turn_list": turn_list, "log": log_data})
        return
    click.echo(printable(views.session_text(summary, turns, store.branch_ref(session, "main"))))
    if log:
        embeds = embedded_logs(store, log)  # teddy.subagentMode=embed: shown in place
        click.echo("\n" + display_log(log, embeds), nl=False, color=use_color(ws.repo.git_config))


@click.command()
@click.argument("session", required=False)
@click.option(
    "--json", "as_json", is_flag=True, help="Print every turn commit (plan, report) as JSON."
)
@page_output
def log(session: str | None, as_json: bool) -> None:
    """Show the turn graph of a session across its conversation branches."""
    store = open_workspace().store
    session_id = store.resolve_session(session)
    if as_json:
        echo_json([asdict(commit) for commit in store.turn_commits(session_id)])
    else:
        turns = store.turns(session_id)
        click.echo(printable(views.turn_graph(session_id, turns, store.branches(session_id))))


@click.command()
@click.argument("remote", required=False)
@click.argument("sessions", nargs=-1)
@click.option(
    "--allow-secret",
    "allowed",
    multiple=True,
    metavar="ID",
    help="Let the pre-push hook push this finding: a blob or commit id (7+ characters, as its"
    " error names it) or a path; repeatable.",
)
def push(remote: str | None, sessions: tuple[str, ...], allowed: tuple[str, ...]) -> None:
    """Push sessions (default: all local ones) to REMOTE (a remote's name, a URL or a path;
    default: teddy.remote or origin): their branches and keep refs (which carry their
    snapshots), nothing else, in one `git push`."""
    from git_teddy.session.carried import unseen_files_line
    from git_teddy.session.sharing import push_sessions

    done = push_sessions(open_workspace(), remote, list(sessions), list(allowed))
    click.echo(
        f"pushed {len(done.sessions)} session(s) to {done.remote}: {', '.join(done.sessions)}"
    )
    click.echo(unseen_files_line(done.unseen_files, done.remote))
    if done.sessions_only:
        click.echo(
            f"warning: {done.remote} has no branch of the project, only sessions: a clone of it"
            f" checks out nothing\nhint: push a branch of yours too: `git push -u {done.remote}"
            " HEAD`",
            err=True,
        )


@click.command()
@click.argument("remote", required=False)
@click.argument("sessions", nargs=-1)
def fetch(remote: str | None, sessions: tuple[str, ...]) -> None:
    """Fetch the sessions of REMOTE (a remote's name, a URL or a path; default: teddy.remote
    or origin; all of them, or the SESSIONS named by full id) under remote-tracking refs with
    their snapshots, in one `git fetch`, so that list, show, log, restore and branch work on
    them (a URL's are kept under refs/remotes/ by a name made from it, e.g. `team` for
    .../team.git); a warning names snapshots of the sessions it brought or was named (also
    those that came by plain git) that REMOTE lacks too."""
    from git_teddy.session.sharing import fetch_sessions

    done = fetch_sessions(open_workspace(), remote, list(sessions))
    if done.moved:
        _update_index()
    shown, more = done.sessions[:NEW_SHOWN], len(done.sessions) - NEW_SHOWN
    new = f"; new: {', '.join(shown)}" if shown else ""
    new += f" and {more} more (`git teddy list`)" if more > 0 else ""
    click.echo(f"fetched sessions from {done.remote}{new}")
    if done.kept_as:
        click.echo(f"(kept as the remote {done.kept_as!r}: refs/remotes/{done.kept_as}/)")
    for session, snapshots in done.missing.items():
        ids = ", ".join(sha[:12] for sha in snapshots)
        click.echo(
            f"warning: session {session}: {len(snapshots)} snapshot(s) are neither here nor on"
            f" {done.remote}: {ids}",
            err=True,
        )
    if done.missing:
        click.echo(
            "hint: its branches came by plain git (git push --all, git clone), which leaves"
            " snapshots behind;\nhint: whoever made the session shares them with `git teddy"
            f" push`, then run `git teddy fetch {shlex.quote(done.remote)}` again",
            err=True,
        )


def _update_index() -> None:
    """The session index brought up to date now, reading the sessions the fetch brought in
    bulk (index/read.py), so the `list` that follows answers from it. Derived state: a
    failure here leaves it for `list` to do, and the fetch done."""
    from git_teddy.index.refresh import refresh

    with contextlib.suppress(TeddyError, OSError):
        refresh()


@click.command()
@click.argument("sessions", nargs=-1, metavar="[SESSION]...")
@click.option(
    "--older-than",
    "older_than",
    type=click.IntRange(min=0),
    metavar="DAYS",
    help="Delete every session with no commit in the last DAYS days (instead of naming them).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Do not ask, and delete saved states of your own files the sessions hold too.",
)
def delete(sessions: tuple[str, ...], older_than: int | None, force: bool) -> None:
    """Delete sessions: their branches (fetched copies too), keep refs and local state, and
    the repository's idle scratch worktrees (the next execute makes one).
    Like `git branch -D`, the objects stay until `git gc`: each ref's last id is printed, and
    `git update-ref <ref> <id>` brings it back until then."""
    from datetime import timedelta

    from git_teddy.cli.terminal import confirm
    from git_teddy.session.delete import (
        delete_sessions,
        refuse_losing_saved_states,
        select_sessions,
    )

    ws = open_workspace()
    store = ws.store
    age = None if older_than is None else timedelta(days=older_than)
    doomed = select_sessions(store, list(sessions), age)
    if not doomed:
        click.echo(f"no session is older than {older_than} days")
        return
    if not force:
        refuse_losing_saved_states(doomed)
        names = ", ".join(d.session for d in doomed)
        if not confirm(f"delete {len(doomed)} session(s): {names}?", "delete"):
            raise TeddyError("nothing was deleted", "")
    delete_sessions(store, doomed, ws.settings.text(WORKTREE_DIR))
    for d in doomed:
        click.echo(f"deleted session {d.session}")
        for name, sha in sorted(d.refs.items()):
            click.echo(f"  {name} (was {sha})")
    if current.recorded(store.repo) in {d.session for d in doomed}:
        click.echo(
            "note: that was this worktree's current session: choose another with `git teddy"
            " resume ID` or `-s ID`, or start one with `git teddy new NAME`",
            err=True,
        )


@click.command()
@click.argument("session", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def saved(session: str | None, as_json: bool) -> None:
    """List the saved states of your own files in SESSION (default: the current session):
    what restore, branch and execute saved before changing your files, newest first, and
    how to get each one back."""
    from git_teddy.session.restore import restore_command, saved_states

    store = open_workspace().store
    session_id = store.resolve_session(session)
    states = saved_states(store, session_id)
    if as_json:
        rows = [
            {
                "id": s.sha,
                "time": s.time,
                "what": s.what,
                "restore": restore_command(session_id, s.sha),
            }
            for s in states
        ]
        echo_json(rows)
        return
    if not states:
        click.echo(f"session {session_id} has no saved states of your files", err=True)
    for state in states:
        back = restore_command(session_id, state.sha)
        click.echo(f"{state.sha[:12]}  {state.time}  your files before {state.what}  ({back})")
