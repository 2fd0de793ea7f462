"""`codify`: a session's log (and its subagents') made a workflow, refined by the model when
asked; the editor and the output file are the CLI's."""

import shlex

from git_teddy.artifacts.folder import SESSION_LOG
from git_teddy.artifacts.plan.validate import format_problems
from git_teddy.artifacts.sessionlog.parse import parse_log
from git_teddy.errors import TeddyError
from git_teddy.llm import provider_from_settings
from git_teddy.planning.ask import ask, keep_failed
from git_teddy.session.sessionlogs import log_text, subagent_logs
from git_teddy.session.workspace import Workspace
from git_teddy.ui import UI
from git_teddy.workflow.extract import extract_workflow
from git_teddy.workflow.model import render_workflow
from git_teddy.workflow.refine import REFINE_SYSTEM, refine_payload, refined, unwrap_fence

REFINE_RETRIES = 1  # an invalid refinement is sent back once


def codify_session(ws: Workspace, session: str, refine: bool, ui: UI) -> str:
    """The workflow of `session`'s current branch, as text (docs/workflows.md)."""
    session = ws.store.resolve_session(session)
    branch = ws.store.current_branch(session)
    text = log_text(ws.store, session, branch)
    log = parse_log(text, f"{SESSION_LOG} of {session}")
    if not log.phases:
        raise TeddyError(
            f"session {session} has no turns yet: nothing to codify",
            f"plan and execute a turn first: `git teddy plan -s {shlex.quote(session)} -m ...`",
        )
    linked = {sub.meta.session_id: sub for sub in subagent_logs(ws.store, session, branch)}
    workflow = render_workflow(extract_workflow(log, ws.store.now().isoformat(), linked))
    return _refine(ws, session, text, workflow, ui) if refine else workflow


def _refine(ws: Workspace, session: str, log_text: str, extract: str, ui: UI) -> str:
    """The model's improved workflow, re-prompted once with the problems of an invalid reply."""
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
