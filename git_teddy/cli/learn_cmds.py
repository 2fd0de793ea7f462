"""`git teddy codify|learn`: workflows and training cases from session logs. The work is in
git_teddy.workflow (codify.py) and git_teddy.learn (sessions.py, cases.py, export.py); here:
the editor, files and what is printed."""

from pathlib import Path

import click

from git_teddy.artifacts.plan.validate import format_problems
from git_teddy.cli.terminal import TerminalUI
from git_teddy.errors import TeddyError
from git_teddy.learn.cases import CASE_TYPES, Case
from git_teddy.learn.export import EXPORTS, export_jsonl, export_markdown, export_puzzles
from git_teddy.learn.sessions import all_sessions, sessions_cases
from git_teddy.session.workspace import open_workspace
from git_teddy.workflow.codify import codify_session
from git_teddy.workflow.markup import parse_workflow

# ---- codify ----------------------------------------------------------------------------------


@click.command()
@click.argument("session")
@click.option(
    "--refine",
    is_flag=True,
    help="Ask the model (teddy.provider) to clean the workflow up, add type annotations and "
    "clarify conditional flows.",
)
@click.option(
    "--interactive",
    is_flag=True,
    help="Open the workflow in $EDITOR and check it before it is written.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the workflow to FILE (default: standard output).",
)
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
def codify(session: str, refine: bool, interactive: bool, output: Path | None, force: bool) -> None:
    """Turn SESSION's log into a workflow (docs/workflows.md): one step per turn, with its
    @agent and #channel, data flow from its tool calls, checks and approval gates."""
    if output is not None and output.exists() and not force:
        raise _exists(output)
    text = codify_session(open_workspace(), session, refine, TerminalUI())
    if interactive:
        text = _edit_until_valid(text)
    if output is None:
        click.echo(text, nl=False)
        return
    if output.exists() and not force:
        raise _exists(output)  # it appeared while the model or the editor was busy
    _write(output, text)
    click.echo(f"wrote {output}", err=True)


def _exists(path: Path) -> TeddyError:
    return TeddyError(
        f"{path} already exists", "overwrite it with --force, or choose another -o FILE"
    )


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise TeddyError(
            f"cannot write {path}: {error.strerror}", "check the folder exists"
        ) from None


def _edit_until_valid(text: str) -> str:
    """The user's edit of `text`, once it is a valid workflow; aborting writes nothing."""
    while True:
        try:
            edited = click.edit(text, extension=".md", require_save=False)
        except click.ClickException as error:
            raise TeddyError(
                f"{error.message}; nothing was written",
                "set $EDITOR (or $VISUAL) to an editor that exits with status 0",
            ) from None
        text = text if edited is None else edited
        workflow, problems = parse_workflow(text)
        if workflow is not None:
            return text
        click.echo(
            f"the workflow has {len(problems)} problem(s):\n{format_problems(problems)}", err=True
        )
        again = click.prompt(
            "[e]dit again or [a]bort",
            type=click.Choice(["e", "a"]),
            default="e",
            show_choices=False,
            err=True,
        )
        if again == "a":
            raise TeddyError("codify aborted: nothing was written", "run it again to start over")


# ---- learn -----------------------------------------------------------------------------------


@click.command()
@click.argument("sessions", nargs=-1, metavar="[SESSION]...")
@click.option(
    "--type",
    "case_type",
    type=click.Choice(CASE_TYPES),
    help="Only puzzles (from [!error] callouts) or only corrections (the user's rejections "
    "and replies); default: both.",
)
@click.option(
    "--export",
    "export",
    type=click.Choice(EXPORTS),
    default="jsonl",
    show_default=True,
    help="jsonl: chat-format fine-tuning data; markdown: one readable document; puzzle: one "
    "Markdown file per case (needs -o).",
)
@click.option(
    "-o",
    "--output",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Write into DIR (cases.jsonl, cases.md, or one file per case) instead of standard output.",
)
def learn(
    sessions: tuple[str, ...], case_type: str | None, export: str, out_dir: Path | None
) -> None:
    """Learning cases from sessions (default: all): puzzles from failures and correction
    examples from the user's interventions, each with its session, turn, agent, model and
    channel."""
    if export == "puzzle" and out_dir is None:
        raise TeddyError("--export puzzle writes one file per case", "name a folder with -o DIR")
    ws = open_workspace()
    types = (case_type,) if case_type else CASE_TYPES
    ids = [ws.store.resolve_session(s) for s in sessions] if sessions else all_sessions(ws.store)
    cases, skipped = sessions_cases(ws.store, ids, bool(sessions), types)
    for warning in skipped:
        click.echo(warning, err=True)
    counts = ", ".join(f"{sum(c.metadata.type == t for c in cases)} {t}(s)" for t in types)
    click.echo(f"{counts} from {len(ids)} session(s)", err=True)
    files = _export(cases, export)
    if out_dir is None:
        click.echo("".join(files.values()), nl=False)
        return
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise TeddyError(
            f"cannot create {out_dir}: {error.strerror}", "choose another -o DIR"
        ) from None
    for name, content in files.items():
        _write(out_dir / name, content)
    click.echo(f"wrote {len(files)} file(s) to {out_dir}", err=True)


def _export(cases: list[Case], export: str) -> dict[str, str]:
    """File name -> content."""
    if export == "jsonl":
        left_out = sum(case.expected is None for case in cases)
        if left_out:
            click.echo(
                f"{left_out} case(s) with no known correct behaviour left out of the jsonl",
                err=True,
            )
        return {"cases.jsonl": export_jsonl(cases)}
    if export == "markdown":
        return {"cases.md": export_markdown(cases)}
    return export_puzzles(cases)
