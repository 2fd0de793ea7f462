"""`git teddy plan` and `git teddy execute`: one turn, planned then executed."""

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import click

from git_teddy.cli.chosen import LOOK_HELP, SESSION_HELP, make_current, session_for
from git_teddy.cli.pager import page_output
from git_teddy.cli.textio import read_text
from git_teddy.errors import (
    EXIT_CONFLICTS,
    EXIT_NOT_APPLIED,
    EXIT_TURN_FAILED,
    EXIT_TURN_STOPPED,
)
from git_teddy.printable import json_printable, printable, quote_path
from git_teddy.session.workspace import open_workspace

if TYPE_CHECKING:
    from git_teddy.gitstore.apply import ApplyResult


@click.command()
@click.option("-m", "--message", required=True, help="Your prompt for this turn.")
@click.option("-s", "--session", help=SESSION_HELP)
@click.option(
    "-a",
    "--agent",
    help="Agent to plan with (default: the agent the previous turn handed to by INVOKE "
    "or CONCLUDE, else the previous turn's agent; dev, which writes code, for a first turn).",
)
@click.option(
    "--context-depth",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Also show the model the prompt, plan and report of N more earlier turns.",
)
@click.option(
    "--from-file",
    "from_file",
    metavar="PLAN.md",
    help="Use this file (or - for stdin) as the model's reply instead of calling one.",
)
@click.option(
    "--pipeline", metavar="NAME", help="Plan through the steps of .teddy/pipelines/NAME.yaml."
)
def plan(
    message: str,
    session: str | None,
    agent: str | None,
    context_depth: int,
    from_file: str | None,
    pipeline: str | None,
) -> None:
    """Plan the next turn: assemble the context, ask the model (teddy.provider), validate
    the plan (re-prompting with the problems), and record it as a commit. The model sees the
    whole repository wherever you run it: a plan's paths are from the top of the working tree."""
    from git_teddy.cli.terminal import TerminalUI
    from git_teddy.planning.turn import plan_turn

    ws = open_workspace()
    session_id = session_for(ws, session)
    reply = read_text(from_file) if from_file is not None else None
    planned = plan_turn(
        ws,
        session_id,
        message,
        agent,
        context_depth,
        reply,
        ui=TerminalUI(),
        pipeline=pipeline,
    )
    if reply is not None:  # what the sanitizer repaired in the file, as validate says it
        from git_teddy.artifacts.plan import read_plan
        from git_teddy.cli.plan_cmds import echo_notes

        echo_notes(read_plan(reply).notes)
    click.echo(printable("\n".join(planned.summary_lines())))
    click.echo("next: git teddy execute", err=True)


@click.command()
@click.option("-s", "--session", help=LOOK_HELP)
@click.option(
    "--context-depth",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Include the artifacts of N more earlier turns, as plan would.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--allow-url",
    "allow",
    multiple=True,
    metavar="URL",
    help="Allow URL to be fetched for the session (one the context names but nobody approved "
    "for it yet: from .teddy/global.context or a teammate's session); repeatable.",
)
def context(session: str | None, context_depth: int, as_json: bool, allow: tuple[str]) -> None:
    """Show the resources the next turn's model would get, with token counts; no model call.
    A URL is fetched only once approved for the session; the others are "not fetched yet"."""
    from git_teddy.planning.context_cache import Answer, Watch
    from git_teddy.planning.turn import context_preview
    from git_teddy.planning.url_approval import check_url

    # Answers are cached (git_teddy.planning.context_cache, looked up before click even loads):
    # watch what this one depends on from before anything is read, to store it if nothing moved.
    watch = Watch.start(Path.cwd())
    ws = open_workspace()
    session_id = ws.store.resolve_session(session)
    if allow:
        ws.repo.layout.approve_urls(session_id, [check_url(url) for url in allow])
    inputs = context_preview(ws, session_id, context_depth)
    resources = [(r.name, r.tokens, r.note) for r in inputs.resources]
    overview = (inputs.overview.text or "", inputs.overview.tokens) if inputs.overview else ("", 0)
    answer = Answer(
        session_id,
        inputs.agent,
        inputs.encoding,
        resources,
        overview,
        inputs.pruned,
        inputs.system_tokens,
    )
    if watch is not None:
        watch.remember(ws.repo.read_commit(inputs.base).tree, session, context_depth, answer)
    text = answer.render("json" if as_json else "text")
    click.echo(json_printable(text) if as_json else printable(text))


@click.command()
@click.option("-s", "--session", help=SESSION_HELP)
@click.option("-y", "--yes", is_flag=True, help="Approve every memo change and action.")
def execute(session: str | None, yes: bool) -> int:
    """Execute the pending plan: approve each action, run it in a scratch worktree, write
    the report, apply the result to your working tree as uncommitted changes.

    Exit status: 0 done (also when teddy.apply kept the result unapplied); 4 an action
    failed; 5 you quit at an approval; 6 the result was kept but not applied: it would
    write into a submodule or over a file no snapshot has; 7 applied where it merged with
    your edits, conflicts left to resolve (1: refused, nothing done)."""
    from git_teddy.cli.terminal import execute_ui
    from git_teddy.execute.runner import NOT_APPLIED_BY_CHOICE, execute_turn, find_pending

    ws = open_workspace()
    session_id = session_for(ws, session)
    # "nothing to execute" is the answer whether or not there is a terminal to ask on.
    find_pending(ws.store, session_id)
    ui = execute_ui(yes)
    result = execute_turn(ws, session_id, ui)
    summary = result.report.run_summary
    click.echo(f"\nturn {result.turn.turn}: {summary.status}; snapshot {summary.snapshot}")
    if result.apply and result.apply.applied:
        how = "merged with your edits" if result.apply.merged else "applied"
        click.echo(f"{how}: {len(result.apply.changed_paths)} file(s) changed in your working tree")
        click.echo(f"to undo: {undo_command(session_id if session else None)}", err=True)
        if result.apply.conflicts:
            quotes = ws.repo.quotes_paths()
            states = (result.user_state, summary.snapshot)
            _show_conflicts(result.apply, result.turn.turn, states, quotes)
    else:
        click.echo(f"result: {summary.applied}")
    applied = str(summary.applied)  # "not applied: ..." could not be served; a choice is no failure
    refused = applied.startswith("not applied") and applied != NOT_APPLIED_BY_CHOICE
    conflicts = bool(result.apply and result.apply.conflicts)
    return execute_exit_code(summary.status, refused, conflicts)


@click.command()
@click.option("-s", "--session", help=SESSION_HELP)
def discard(session: str | None) -> None:
    """Drop the pending plan without running it, so that `plan` can make another.

    Nothing is lost: the turn is recorded as stopped (a report commit, every action
    skipped, nothing applied), as if you had quit at its first approval; `show` and `log`
    keep the plan."""
    from git_teddy.execute.discard import discard_turn

    ws = open_workspace()
    done = discard_turn(ws, session_for(ws, session))
    title = f": {done.title}" if done.title else ""
    click.echo(f"turn {done.turn} discarded{title} ({done.actions} action(s) not run)")
    click.echo("next: git teddy plan -m MESSAGE", err=True)


def _show_conflicts(
    applied: "ApplyResult", turn: str, states: tuple[str | None, str | None], quotes: bool
) -> None:
    """Which files conflict and how, as `git stash pop` says it, and the way back; file
    names quoted as git quotes them (core.quotePath: `quotes`)."""
    user_state, snapshot = states
    marked = [quote_path(p, quotes) for p in applied.conflicts if p not in applied.kept_yours]
    if marked:
        click.echo(f"conflicts (markers: yours / turn {turn}) in: {', '.join(marked)}")
    for path in applied.kept_yours:
        theirs = f"git show {shlex.quote(f'{snapshot}:{path}')}"
        shown = quote_path(path, quotes)
        click.echo(f"conflict in {shown}: your version is kept; the turn's: {theirs}")
    if user_state:
        back = f"git teddy restore {user_state[:12]}"
        click.echo(f"resolve them and carry on; to undo the whole apply: {back}", err=True)


def undo_command(session: str | None) -> str:
    """The undo of an execute: `-s` kept when the command named the session."""
    return f"git teddy undo -s {shlex.quote(session)}" if session else "git teddy undo"


def execute_exit_code(status: str, not_applied: bool, conflicts: bool) -> int:
    """`execute`'s exit status, git-style: 0 only when the turn went as planned."""
    if status == "ABORTED":
        return EXIT_TURN_STOPPED
    if not_applied:
        return EXIT_NOT_APPLIED
    if conflicts:
        return EXIT_CONFLICTS
    return EXIT_TURN_FAILED if status == "FAILURE" else 0


@click.command()
@click.argument("target", metavar="TURN|base|SNAPSHOT")
@click.option("-s", "--session", help=SESSION_HELP)
@click.option("--force", is_flag=True, help="Overwrite changes you made by hand (they are saved).")
def restore(target: str, session: str | None, force: bool) -> None:
    """Make your working tree the project state after TURN, the session's starting state
    (`base` or `00`), or a saved SNAPSHOT; HEAD, the branch and the index stay as they
    are, and your current files are saved first. A SNAPSHOT is looked for in the session
    (-s, else this worktree's current one) first, then in the others; the output names the
    session used."""
    from git_teddy.session.restore import (
        is_base,
        restore_command,
        restore_turn,
        told_saved_state,
    )

    ws = open_workspace()
    if session is not None:
        session = session_for(ws, session)
    done = restore_turn(ws, target, session, force)
    what = f"turn {done.turn}" if done.turn else f"snapshot {done.target[:12]}"
    if is_base(target):
        what = f"the base ({done.target[:12]})"
    click.echo(f"restored {what} of {done.session}: {len(done.changed)} file(s) changed")
    for note in done.notes:  # submodules left as they are, as git checkout leaves them
        click.echo(note, err=True)
    if done.branch:
        click.echo(f"the session continues from {what} on branch {done.branch}")
    elif done.fork:
        click.echo(f"the next plan continues from {what}, on a new conversation branch")
    back = restore_command(done.session, done.saved)
    click.echo(f"your previous files are saved; to return to them: {back}")
    told_saved_state(ws, done.session)


@click.command()
@click.option("-s", "--session", help=SESSION_HELP)
@click.option(
    "-n", "--dry-run", is_flag=True, help="Only say which turn and files undo would change."
)
def undo(session: str | None, dry_run: bool) -> int:
    """Put your files back as they were before the last applied turn (the state execute
    saved before applying); run it again to undo the turn before. Edits you made since are
    merged in as `git stash pop` merges; your current files are saved first, and the output
    says how to return to them. HEAD, the branch and the index stay as they are.

    Exit status: 0 done; 7 your later edits conflicted with the undo, conflicts left to
    resolve (1: refused, nothing done)."""
    from git_teddy.session.restore import restore_command, told_saved_state
    from git_teddy.session.undo import preview, undo_last

    ws = open_workspace()
    session_id = session_for(ws, session)
    if dry_run:
        turn, paths = preview(ws, session_id)
        click.echo(f"undo would take back turn {turn} of {session_id}: {len(paths)} file(s)")
        for path in paths:
            click.echo(printable(f"  {path}"))
        return 0
    done = undo_last(ws, session_id)
    how = " (merged with your later edits)" if done.merged else ""
    click.echo(
        f"undid turn {done.turn} of {done.session}: {len(done.changed)} file(s) changed{how}"
    )
    if done.uncommitted:
        click.echo(f"removed commit {done.uncommitted[:12]} (teddy.autoCommit) from your branch")
    for note in done.notes:
        click.echo(note, err=True)
    if done.conflicts:
        click.echo(
            f"conflicts (markers: yours / before turn {done.turn}) in: "
            + printable(", ".join(done.conflicts))
        )
    back = restore_command(done.session, done.saved)
    click.echo(f"your files before the undo are saved; to return to them: {back}")
    told_saved_state(ws, done.session)
    return EXIT_CONFLICTS if done.conflicts else 0


@click.command()
@click.argument("turn")
@click.option("-m", "--message", required=True, help="The new message for the alternative turn.")
@click.option("-s", "--session", help=SESSION_HELP)
@click.option("-a", "--agent", help="Agent to plan with (default: TURN's agent).")
@click.option(
    "--from-file",
    "from_file",
    metavar="PLAN.md",
    help="Use this file (or - for stdin) as the model's reply instead of calling one.",
)
@click.option("--force", is_flag=True, help="Overwrite changes you made by hand (they are saved).")
def branch(
    turn: str,
    message: str,
    session: str | None,
    agent: str | None,
    from_file: str | None,
    force: bool,
) -> None:
    """Start a conversation branch as an alternative to TURN: your files go back to where
    TURN started (saved first), then a new plan on the same context with a new message.
    Later turns go on the new branch."""
    from git_teddy.cli.terminal import TerminalUI
    from git_teddy.planning.branching import place_turn_base, plan_alternative
    from git_teddy.session.restore import restore_command, told_saved_state

    ws = open_workspace()
    ref = ws.store.resolve_turn(turn, session)
    make_current(ws, ref.session)
    branching = place_turn_base(ws, ref, force)
    placed = branching.placed
    for note in placed.notes:
        click.echo(note, err=True)
    back = restore_command(ref.session, placed.saved)
    click.echo(
        f"your files are as turn {ref.turn} found them ({len(placed.changed)} changed); "
        f"to return: {back}"
    )
    told_saved_state(ws, ref.session)  # said before planning, which may fail or take long
    reply = read_text(from_file) if from_file is not None else None
    name, planned = plan_alternative(ws, branching, message, agent, reply, TerminalUI())
    click.echo(f"branch {name} of {ref.session}, an alternative to turn {ref.turn}")
    title = printable(planned.plan.title, one_line=True)
    click.echo(f"turn {planned.record.turn} (@{planned.record.agent}): {title}")
    click.echo("next: git teddy execute", err=True)


@click.command()
@click.argument("target", metavar="FILE[:LINE]")
@page_output
def blame(target: str) -> None:
    """Show which session and turn last changed each line of FILE (or just LINE).

    FILE is read as git reads paths: relative to the current directory, or from the top
    of the working tree as `:/path`. Only lines a turn changed are credited to it; the
    others are your commits' or your uncommitted edits."""
    from git_teddy.session.blame import blame_lines

    path, _, line = (
        target.rpartition(":") if target.rpartition(":")[2].isdigit() else (target, "", "")
    )
    rows = blame_lines(open_workspace(), path, int(line) if line else None)
    width = max((len(r.origin) for r in rows), default=0)
    for row in rows:
        commit = f"^{row.commit[:9]}" if row.boundary else row.commit[:10]  # as git marks it
        line = f"{row.number:>5}  {row.origin:<{width}}  {commit}  {row.text}"
        click.echo(printable(line))  # a line of a file: its tabs kept
