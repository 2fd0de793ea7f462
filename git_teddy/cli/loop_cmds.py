"""`git teddy start|continue|resume`: the plan-act loop on a new or existing session."""

import shlex
from collections.abc import Callable
from typing import Any

import click

from git_teddy.cli.chosen import SESSION_HELP, make_current, session_for
from git_teddy.cli.terminal import loop_ui
from git_teddy.errors import TeddyError
from git_teddy.session import current
from git_teddy.session.workspace import Workspace, open_workspace
from git_teddy.settings import CHANNEL
from git_teddy.ui import UI


def loop_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Options every loop command shares."""
    for option in reversed(
        [
            click.option(
                "--yolo",
                is_flag=True,
                help="Approve everything and loop without asking, until the model asks you "
                "(CHAT_WITH_USER: answer on stdin) or concludes.",
            ),
            click.option(
                "--max-turns",
                type=click.IntRange(min=1),
                metavar="N",
                help="Stop after N turns.",
            ),
            click.option(
                "--max-cost",
                type=click.FloatRange(min=0),
                metavar="USD",
                help="Stop planning once the turns of this run cost USD or more.",
            ),
            click.option(
                "--context-depth",
                type=click.IntRange(min=0),
                metavar="N",
                default=0,
                show_default=True,
                help="Also show the model the prompt, plan and report of N more earlier turns.",
            ),
            click.option(
                "--pipeline",
                metavar="NAME",
                help="Plan every turn through the steps of .teddy/pipelines/NAME.yaml.",
            ),
        ]
    ):
        command = option(command)
    return command


def _run(
    ws: Workspace,
    session: str,
    message: str | None,
    ui: UI,
    max_turns: int | None,
    max_cost: float | None,
    context_depth: int,
    pipeline: str | None,
    agent: str | None = None,
    resume: bool = False,
) -> None:
    from git_teddy.loop import LoopLimits, describe_outcome, run_loop

    limits = LoopLimits(max_turns, max_cost)
    outcome = run_loop(
        ws, session, message, ui, limits, context_depth, agent, pipeline, resume=resume
    )
    click.echo(describe_outcome(outcome))
    if outcome.error:
        raise outcome.error
    if outcome.reason == "waiting":
        again = f"git teddy continue -s {shlex.quote(session)}"
        click.echo(f'answer with: {again} -m "YOUR REPLY"', err=True)
    elif outcome.reason != "concluded":
        click.echo(f"go on with: git teddy continue -s {shlex.quote(session)}", err=True)


@click.command()
@click.argument("name")
@click.option("-m", "--message", help="Your prompt for the first turn (asked for otherwise).")
@click.option("-a", "--agent", help="Agent of the first turn (default: dev, which writes code).")
@click.option(
    "--channel", help="Channel recorded in the session log (default: teddy.channel or 'cli')."
)
@loop_options
def start(
    name: str,
    message: str | None,
    agent: str | None,
    channel: str | None,
    yolo: bool,
    max_turns: int | None,
    max_cost: float | None,
    context_depth: int,
    pipeline: str | None,
) -> None:
    """Start a session NAME and run the plan-act loop on it: before each plan, an optional
    comment; then the plan; then each action to approve (none with --yolo)."""
    ui = loop_ui(yolo, "start")
    if yolo and not message:
        raise TeddyError("start --yolo needs the first message", "give it with -m MESSAGE")
    ws = open_workspace()
    channel = channel or ws.settings.text(CHANNEL)
    session = ws.store.create_session(name, channel)
    current.record(ws.repo, session)
    click.echo(f"session {session}")
    _run(ws, session, message, ui, max_turns, max_cost, context_depth, pipeline, agent)


@click.command("continue")
@click.option("-s", "--session", help=SESSION_HELP)
@click.option("-m", "--message", help="Your prompt for the next turn (asked for otherwise).")
@click.option("-a", "--agent", help="Agent of the next turn (default: as handoffs decide).")
@loop_options
def continue_(
    session: str | None,
    message: str | None,
    agent: str | None,
    yolo: bool,
    max_turns: int | None,
    max_cost: float | None,
    context_depth: int,
    pipeline: str | None,
) -> None:
    """Run the plan-act loop on an existing session: a plan still waiting is executed first;
    a paused session becomes active again."""
    ui = loop_ui(yolo, "continue")
    ws = open_workspace()
    session_id = session_for(ws, session)
    _run(ws, session_id, message, ui, max_turns, max_cost, context_depth, pipeline, agent)


@click.command()
@click.argument("session", required=False)
@click.option(
    "-s", "--session", "named", help="The same as SESSION; made this worktree's current session."
)
@click.option("-m", "--message", help="Your prompt for the next turn (asked for otherwise).")
@loop_options
def resume(
    session: str | None,
    named: str | None,
    message: str | None,
    yolo: bool,
    max_turns: int | None,
    max_cost: float | None,
    context_depth: int,
    pipeline: str | None,
) -> None:
    """Resume SESSION where it stopped (default: this worktree's current session), made
    this worktree's current session (a teammate's fetched one goes on on a local branch of
    yours, which is said): a plan without a report is executed; after a completed turn you
    are asked for a new message; a paused session becomes active again. The next plan is
    shown the session log up to its resume point (older phases cut to their decisions when
    it exceeds teddy.contextWindow). Then the loop goes on as with `continue`."""
    from git_teddy.loop import resume_context

    ui = loop_ui(yolo, "resume")
    if session and named and session != named:
        raise TeddyError(f"resume names two sessions: {session} and -s {named}", "name one of them")
    ws = open_workspace()
    session_id = ws.store.resolve_session(session or named)
    make_current(ws, session_id)
    click.echo("\n".join(resume_context(ws, session_id)))
    _run(ws, session_id, message, ui, max_turns, max_cost, context_depth, pipeline, resume=True)


@click.command()
@click.option("-s", "--session", help=SESSION_HELP)
def pause(session: str | None) -> None:
    """Pause a session: its log gets `status: paused` and a `resume_point` (its last turn);
    `git teddy resume` continues from there."""
    from git_teddy.loop import pause_session

    ws = open_workspace()
    session_id = session_for(ws, session)
    point = pause_session(ws, session_id)
    where = f" at turn {point}" if point else " before its first turn"
    resume = f"git teddy resume {shlex.quote(session_id)}"
    click.echo(f"paused {session_id}{where}; resume with: {resume}")


@click.command()
@click.option("-s", "--session", help="Session id or prefix (default: the latest session).")
def finish(session: str | None) -> None:
    """Mark a session finished: its log gets `status: completed` and the time it ended, and
    `list --status completed` shows it. `git teddy resume` opens it again."""
    from git_teddy.loop import finish_session

    ws = open_workspace()
    session_id = ws.store.resolve_session(session)
    finish_session(ws, session_id)
    click.echo(f"finished {session_id}; reopen with: git teddy resume {shlex.quote(session_id)}")
