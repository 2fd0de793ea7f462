"""`git teddy diff|export`: review a session as a teammate would, each turn's change through
git's own `git diff`, or the whole session as one static HTML page."""

import sys

import click

from git_teddy.cli.color import chosen_color, color_option
from git_teddy.cli.pager import page_output
from git_teddy.session.workspace import open_workspace


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option(
    "--applied",
    is_flag=True,
    help="Your own edits the turn's result was merged with when execute applied it (the "
    "turn's base to your files as execute saved them): what your working tree got beyond "
    "the result.",
)
@color_option
@click.argument("spec", metavar="[SESSION/]TURN|A..B")
@click.argument("git_args", nargs=-1, type=click.UNPROCESSED, metavar="[GIT-DIFF-OPTIONS]...")
@page_output
def diff(spec: str, git_args: tuple[str, ...], applied: bool) -> None:
    """Show what a turn changed in the project (its base snapshot to its result) with
    `git diff`; or, with A..B, the difference between the results of two turns or two
    conversation branches (a branch stands for its newest result: `02-branch-01..main`).
    Everything after the spec goes to `git diff`: `--stat`, `--word-diff`, `-- PATH`..."""
    from git_teddy.review.diffs import diff_ends

    ws = open_workspace()
    ends = diff_ends(ws.store, spec, applied)
    for sha in (ends.old, ends.new):
        ws.repo.read_commit(sha)  # a snapshot never fetched: an error with the way out
    sys.stdout.flush()  # git writes to the same terminal or pager: nothing of ours after it
    code = ws.repo.show_diff(ends.old, ends.new, git_args, chosen_color())
    if code:
        click.get_current_context().exit(code)  # git said why (or --exit-code differed)
