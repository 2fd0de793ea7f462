"""`git teddy codify|learn`: workflows and training cases from session logs. The pure work
is in git_teddy.workflow, git_teddy.learn.cases and git_teddy.learn.export; here: reading logs, the
model, the editor, files."""

import shlex
from collections.abc import Iterator
from pathlib import Path

import click

from git_teddy.artifacts.folder import SESSION_LOG, SUBAGENTS_DIR
from git_teddy.artifacts.names import MAIN_BRANCH
from git_teddy.artifacts.plan.validate import format_problems
from git_teddy.artifacts.sessionlog.model import SessionLog
from git_teddy.artifacts.sessionlog.parse import parse_log
from git_teddy.artifacts.sessionlog.reading import inline_subagent_logs
from git_teddy.cli.terminal import TerminalUI
from git_teddy.errors import TeddyError
from git_teddy.learn.cases import CASE_TYPES, Case, dedupe, learn_cases
from git_teddy.learn.export import EXPORTS, export_jsonl, export_markdown, export_puzzles
from git_teddy.llm import provider_from_settings
from git_teddy.planning.ask import ask, keep_failed
from git_teddy.session.workspace import Workspace, open_workspace
from git_teddy.workflow.extract import extract_workflow
from git_teddy.workflow.markup import parse_workflow
from git_teddy.workflow.model import render_workflow
from git_teddy.workflow.refine import REFINE_SYSTEM, refine_payload, refined, unwrap_fence

REFINE_RETRIES = 1  # an invalid refinement is sent back once


def _log_text(ws: Workspace, session: str, branch: str, path: str = SESSION_LOG) -> str:
    text = ws.store.read_session_file(ws.store.branches(session)[branch], path)
    if text is None:
        raise TeddyError(
            f"session {session} has no {path} on branch {branch}",
            "it is written by every session commit; plan a turn to create it",
        )
    return text


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
    ws = open_workspace()
    session = ws.store.resolve_session(session)
    branch = ws.store.current_branch(session)
    log_text = _log_text(ws, session, branch)
    log = parse_log(log_text, f"{SESSION_LOG} of {session}")
    if not log.phases:
        raise TeddyError(
            f"session {session} has no turns yet: nothing to codify",
            f"plan and execute a turn first: `git teddy plan -s {shlex.quote(session)} -m ...`",
        )
    linked = {sub.meta.session_id: sub for sub in _subagent_logs(ws, session, branch)}
    text = render_workflow(extract_workflow(log, ws.store.now().isoformat(), linked))
    if refine:
        text = _refine(ws, session, log_text, text)
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


def _refine(ws: Workspace, session: str, log_text: str, extract: str) -> str:
    """The model's improved workflow, re-prompted once with the problems of an invalid reply."""
    ui = TerminalUI()
    provider = provider_from_settings(ws.settings, ws.repo.layout.root, ui=ui)
    payload = refine_payload(log_text, extract)
    workflow, attempts = ask(provider, REFINE_SYSTEM, payload, refined(session), REFINE_RETRIES, ui)
    last = attempts[-1]
    if workflow is not None:
        return unwrap_fence(last.completion.text).rstrip("\n") + "\n"
    layout = ws.repo.layout
    kept = keep_failed(layout.codify_replies, f"{session}-refine", attempts, layout.shared)
    raise TeddyError(
        f"the refined workflow is not valid after {len(attempts)} attempts:\n"
        + format_problems(last.problems),
        f"the model's last reply is kept in {kept / f'{len(attempts):02d}.md'}; fix it by "
        "hand, or codify without --refine",
    )


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
    ids = [ws.store.resolve_session(s) for s in sessions] if sessions else _all_sessions(ws)
    cases = dedupe(
        [case for log in _logs(ws, ids, bool(sessions)) for case in learn_cases(log, types)]
    )
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


def _all_sessions(ws: Workspace) -> list[str]:
    ids = ws.store.session_ids()
    if not ids:
        raise TeddyError(
            "there are no sessions in this repository yet", "start one with `git teddy new <name>`"
        )
    return ids


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


def _logs(ws: Workspace, sessions: list[str], named: bool) -> Iterator[SessionLog]:
    """The logs of every branch of each session, with their subagents' logs. A log that
    does not parse stops the command when its session was named, else it is passed over."""
    for session in sessions:
        branches = sorted(ws.store.branches(session), key=lambda b: (b != MAIN_BRANCH, b))
        for branch in branches:
            try:
                log = parse_log(_log_text(ws, session, branch), f"{SESSION_LOG} of {session}")
                yield from [log, *inline_subagent_logs(log), *_subagent_logs(ws, session, branch)]
            except TeddyError as error:
                if named:
                    raise
                click.echo(f"warning: {error.message}; skipped", err=True)


def _subagent_logs(ws: Workspace, session: str, branch: str) -> list[SessionLog]:
    """The linked (or embedded) subagents' own logs: `subagents/<id>.md` on the branch."""
    tree = ws.repo.read_commit(ws.store.branches(session)[branch]).tree
    names = sorted(
        name
        for name, is_dir in ws.repo.list_dir(tree, SUBAGENTS_DIR).items()
        if not is_dir and name.endswith(".md")
    )
    paths = [f"{SUBAGENTS_DIR}/{name}" for name in names]
    return [parse_log(_log_text(ws, session, branch, p), f"{p} of {session}") for p in paths]
