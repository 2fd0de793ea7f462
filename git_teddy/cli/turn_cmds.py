"""`git teddy plan` and `git teddy execute`: one turn, planned then executed."""

import sys
from pathlib import Path

import click

from git_teddy.errors import TeddyError
from git_teddy.workspace import open_workspace


def _read_plan_file(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TeddyError(f"cannot read {path}: {error}", "give a readable UTF-8 file") from None


@click.command()
@click.option("-m", "--message", required=True, help="Your prompt for this turn.")
@click.option(
    "--from-file",
    "from_file",
    required=True,
    metavar="PLAN.md",
    help="The plan to record (a model's reply pasted into a file, or - for stdin).",
)
@click.option("-s", "--session", help="Session id or prefix (default: the latest session).")
@click.option("-a", "--agent", help="Agent that planned it (default: the previous turn's).")
def plan(message: str, from_file: str, session: str | None, agent: str | None) -> None:
    """Record a new turn whose plan is PLAN.md (sanitized and validated first)."""
    from git_teddy.execute.approval import describe
    from git_teddy.planning import record_manual_plan

    ws = open_workspace()
    session_id = ws.store.resolve_session(session)
    record, plan_ = record_manual_plan(ws, session_id, message, _read_plan_file(from_file), agent)
    click.echo(f"turn {record.turn} of {session_id}: {plan_.title}")
    for index, action in enumerate(plan_.actions, start=1):
        click.echo(f"  {index}. {describe(action)}")
    click.echo("next: git teddy execute", err=True)


@click.command()
@click.option("-s", "--session", help="Session id or prefix (default: the latest session).")
@click.option("-y", "--yes", is_flag=True, help="Approve every memo change and action.")
def execute(session: str | None, yes: bool) -> None:
    """Execute the pending plan: approve each action, run it in a scratch worktree, write
    the report, apply the result to your working tree as uncommitted changes."""
    from git_teddy.execute.approval import Approver
    from git_teddy.execute.runner import execute as run
    from git_teddy.execute.runner import require_terminal_or_yes

    require_terminal_or_yes(yes)
    ws = open_workspace()
    result = run(ws, ws.store.resolve_session(session), Approver(auto=yes))
    summary = result.report.run_summary
    click.echo(f"\nturn {result.turn.turn}: {summary.status}; snapshot {summary.snapshot}")
    if result.apply and result.apply.applied:
        how = "merged with your edits" if result.apply.merged else "applied"
        click.echo(f"{how}: {len(result.apply.changed_paths)} file(s) changed in your working tree")
    elif result.apply and result.apply.conflicts:
        click.echo(
            "not applied: your edits conflict with the turn's result in "
            + ", ".join(result.apply.conflicts)
        )
        click.echo(
            f"your files are untouched (saved as snapshot {result.user_state}); to take the "
            f"turn's result instead: git restore --source={summary.snapshot} --worktree -- :/"
        )
    else:
        click.echo(f"result: {summary.applied}")
