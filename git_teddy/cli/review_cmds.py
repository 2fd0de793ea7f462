"""`git teddy diff|export`: review a session as a teammate would, each turn's change through
git's own `git diff`, or the whole session as one static HTML page."""

import sys
from pathlib import Path

import click

from git_teddy.cli.color import chosen_color, color_option
from git_teddy.cli.pager import page_output
from git_teddy.errors import TeddyError
from git_teddy.session.workspace import open_workspace


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option(
    "--applied",
    is_flag=True,
    help="Your own edits the turn's result was merged with when execute applied it (the "
    "turn's base to your versions of the files it wrote, as execute saved them): what "
    "those files got beyond the result.",
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


@click.command()
@click.argument("session", required=False)
@click.option(
    "-o",
    "--output",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write the page into this folder as index.html (made if missing).",
)
@click.option(
    "--html",
    "html_file",
    is_flag=False,
    flag_value="-",
    metavar="[FILE|-]",
    help="Write the page to FILE, or to standard output (`-`, or `--html` alone).",
)
def export(session: str | None, folder: Path | None, html_file: str | None) -> None:
    """Export SESSION (default: the current one) as one static HTML page a reviewer opens in a
    browser with no server: its log, each turn's message, plan, approvals, report, the
    context the model saw, tokens, cost and change, and its conversation branches."""
    from git_teddy.review.html import render_page
    from git_teddy.review.reading import read_session_page

    if (folder is None) == (html_file is None):
        raise TeddyError(
            "say where the page goes: -o DIR or --html [FILE|-], one of them",
            "`git teddy export SESSION -o review/` writes review/index.html",
        )
    target = _page_file(folder, html_file)  # None: standard output
    if target is not None and target.is_dir():
        raise TeddyError(f"{target} is a folder", "give a file name, or -o for a folder")
    if folder is not None and folder.exists() and not folder.is_dir():
        raise TeddyError(f"{folder} is not a folder", "give -o a folder, or --html FILE")
    store = open_workspace().store
    read = read_session_page(store, store.resolve_session(session))
    if read.log_problem:
        click.echo(f"warning: {read.log_problem}", err=True)
    page = render_page(read)
    if target is None:
        click.echo(page, nl=False)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.tmp")
    partial.write_text(page, encoding="utf-8")
    partial.replace(target)  # a reader never sees half a page
    click.echo(f"wrote {target}", err=True)


def _page_file(folder: Path | None, html_file: str | None) -> Path | None:
    if folder is not None:
        return folder / "index.html"
    return None if html_file in (None, "-") else Path(str(html_file))


@click.command()
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="The port on 127.0.0.1 (0: any free port).",
)
def serve(port: int) -> None:
    """Serve the review pages of every session in this repository (fetched ones too) on
    127.0.0.1, read-only: a list with the filters of `list` at /, each session's page (the
    one `export` writes) at /session/ID. Stop with Ctrl-C."""
    from git_teddy.review.serve import serve as run_server

    store = open_workspace().store

    def ready(url: str) -> None:
        click.echo(f"serving the sessions at {url} (read-only; Ctrl-C stops)")

    try:
        run_server(store, port, ready)
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
