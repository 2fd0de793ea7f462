"""`git teddy validate` and `git teddy preprocess`: the plan format at the command line.

Neither needs a git repository. Input is read as UTF-8; anything else is a user error.
"""

from collections.abc import Iterable
from pathlib import Path

import click

from git_teddy.artifacts.plan import plan_to_json, problems_to_json, read_plan, sanitize
from git_teddy.artifacts.plan.models import Plan
from git_teddy.artifacts.plan.validate import Problem
from git_teddy.cli.textio import echo_json, read_text
from git_teddy.errors import TeddyError


@click.command()
@click.argument("file", metavar="FILE|-")
@click.option("--json", "as_json", is_flag=True, help="Print the plan, or the errors, as JSON.")
def validate(file: str, as_json: bool) -> None:
    """Check a plan: print a summary, or every problem with its line and a hint.

    Repairs and code blocks left out are printed as warnings. The plan format is described
    in docs/plan-format.md.
    """
    checked = read_plan(read_text(file))
    plan, problems = checked.plan, list(checked.problems)
    echo_notes(checked.notes)
    if as_json:
        result = plan_to_json(plan) if plan is not None else problems_to_json(problems)
        echo_json(result)
    elif plan is not None:
        click.echo(summary(plan))
    else:
        for problem in problems:
            click.echo(f"error: line {problem.line}: {problem.message}", err=True)
            click.echo(f"hint: {problem.hint}", err=True)
    if plan is None:
        # A TeddyError, not ctx.exit(1): main() does not pass on click's exit codes.
        name = "the plan on stdin" if file == "-" else file
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        raise TeddyError(f"{name} is not a valid plan ({count})")


@click.command()
@click.argument("file", required=False, metavar="[FILE]")
@click.option("-i", "--in-place", is_flag=True, help="Rewrite FILE instead of printing.")
@click.option("--clipboard", is_flag=True, help="Read the plan from the clipboard, write it back.")
def preprocess(file: str | None, in_place: bool, clipboard: bool) -> None:
    """Rewrite ambiguous code fences and path links of a plan (stdin when no FILE) so it
    parses as meant; each link repaired is printed as a warning (docs/plan-format.md)."""
    if clipboard and (file or in_place):
        raise click.UsageError("--clipboard takes no FILE and no --in-place")
    if in_place and (file is None or file == "-"):
        raise click.UsageError("--in-place needs a FILE")
    if clipboard:
        # the model providers' package (and shutil) only for the clipboard: not for a file
        from git_teddy.llm.clipboard import clipboard_tool, run_clipboard_tool

        paste, copy = clipboard_tool()
        text = sanitize(run_clipboard_tool(paste))
        run_clipboard_tool(copy, text)
        click.echo("sanitized the plan in the clipboard", err=True)
        return
    given = read_text(file or "-")
    text = sanitize(given)
    echo_notes(note for note in read_plan(given).notes if note.message.startswith("repaired"))
    if in_place:
        assert file is not None
        Path(file).write_bytes(text.encode("utf-8"))
    else:
        click.echo(text, nl=False)


def echo_notes(notes: Iterable[Problem]) -> None:
    """What the sanitizer repaired and what the parser left out: on stderr, as warnings."""
    for note in notes:
        click.echo(f"warning: line {note.line}: {note.message}", err=True)


def summary(plan: Plan) -> str:
    lines = [f"valid plan: {plan.title}", f"{len(plan.actions)} action(s):"]
    for number, action in enumerate(plan.actions, start=1):
        target = getattr(action, "path", None) or getattr(action, "resource", None)
        target = target or getattr(action, "agent", None) or ""
        lines.append(f"  {number}. {action.type} {target}".rstrip())
    return "\n".join(lines)
