"""`git teddy validate` and `git teddy preprocess`: the plan format at the command line.

Neither needs a git repository. Input is read as UTF-8; anything else is a user error.
"""

import shutil
import subprocess
from pathlib import Path

import click

from git_teddy.artifacts.plan import check_plan, plan_to_json, problems_to_json, sanitize
from git_teddy.artifacts.plan.models import Plan
from git_teddy.cli.textio import echo_json, read_text
from git_teddy.errors import TeddyError

# (paste command, copy command) per clipboard tool, in the order they are tried.
CLIPBOARD_TOOLS = (
    (["pbpaste"], ["pbcopy"]),
    (["wl-paste", "--no-newline"], ["wl-copy"]),
    (["xclip", "-selection", "clipboard", "-o"], ["xclip", "-selection", "clipboard", "-i"]),
    (["xsel", "--clipboard", "--output"], ["xsel", "--clipboard", "--input"]),
)


@click.command()
@click.argument("file", metavar="FILE|-")
@click.option("--json", "as_json", is_flag=True, help="Print the plan, or the errors, as JSON.")
def validate(file: str, as_json: bool) -> None:
    """Check a plan: print a summary, or every problem with its line and a hint."""
    plan, problems = check_plan(read_text(file))
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
    """Rewrite ambiguous code fences of a plan (stdin when no FILE) so it parses as meant."""
    if clipboard and (file or in_place):
        raise click.UsageError("--clipboard takes no FILE and no --in-place")
    if in_place and (file is None or file == "-"):
        raise click.UsageError("--in-place needs a FILE")
    if clipboard:
        paste, copy = clipboard_tool()
        text = sanitize(run_tool(paste))
        run_tool(copy, text)
        click.echo("sanitized the plan in the clipboard", err=True)
        return
    text = sanitize(read_text(file or "-"))
    if in_place:
        assert file is not None
        Path(file).write_bytes(text.encode("utf-8"))
    else:
        click.echo(text, nl=False)


def summary(plan: Plan) -> str:
    lines = [f"valid plan: {plan.title}", f"{len(plan.actions)} action(s):"]
    for number, action in enumerate(plan.actions, start=1):
        target = getattr(action, "path", None) or getattr(action, "resource", None)
        target = target or getattr(action, "agent", None) or ""
        lines.append(f"  {number}. {action.type} {target}".rstrip())
    return "\n".join(lines)


def clipboard_tool() -> tuple[list[str], list[str]]:
    for paste, copy in CLIPBOARD_TOOLS:
        if shutil.which(paste[0]) and shutil.which(copy[0]):
            return paste, copy
    raise TeddyError(
        "no clipboard tool found (pbcopy/pbpaste, wl-copy/wl-paste, xclip or xsel)",
        "install one of them, or use a file: `git teddy preprocess -i plan.md`, "
        "or a pipe: `git teddy preprocess < plan.md`",
    )


def run_tool(command: list[str], text: str | None = None) -> str:
    try:
        done = subprocess.run(
            command,
            input=text.encode("utf-8") if text is not None else None,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise TeddyError(f"`{command[0]}` failed: {error}", "check the clipboard tool") from error
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip()
        raise TeddyError(
            f"`{' '.join(command)}` failed (exit {done.returncode}): {detail}",
            "check that the clipboard is reachable (e.g. DISPLAY or WAYLAND_DISPLAY is set)",
        )
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TeddyError("the clipboard does not hold UTF-8 text", "copy the plan again") from error
