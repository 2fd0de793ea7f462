"""Plan recording: a turn's files and figures committed on the session branch, or, when no
valid plan came, the model's replies kept in `failed-plans/` with what they cost."""

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from git_teddy.artifacts.folder import (
    ATTEMPTS_DIR,
    CONTEXT_LOG,
    PLAN,
    SYSTEM_PROMPT,
    TURN_CONTEXT,
    USER_PROMPT,
)
from git_teddy.artifacts.plan import Plan, format_problems, sanitize
from git_teddy.artifacts.turn_record import TurnRecord
from git_teddy.errors import ConcurrentUpdateError, TeddyError
from git_teddy.gitstore.permissions import Shared
from git_teddy.planning.ask import Attempt, attempt_files, keep_failed
from git_teddy.planning.context import render_context_log
from git_teddy.redact import Finding, summarize
from git_teddy.session.store import redact_files
from git_teddy.session.turns import forget_original_plan, keep_original_plan, record_plan
from git_teddy.session.workspace import Workspace

FAILED_USAGE = "usage.json"  # beside the kept replies: what they cost, not yet charged
CHARGED_USAGE = "usage.charged.json"  # ... and once a recorded turn counts it


@dataclass(frozen=True)
class Asked:
    """What asking the model (or a pipeline of models) gave, and what it was sent last."""

    plan: Plan | None
    attempts: list[Attempt]
    system: str
    payload: str
    usage: dict[str, object]
    files: dict[str, bytes]  # extra files for the turn folder (a pipeline's steps)


@dataclass(frozen=True)
class Recorded:
    """Who planned the turn, from which snapshot, under which title."""

    agent: str
    base: str
    agent_stack: list[str]
    title: str


def figure(tokens: object) -> str:
    return str(tokens) if isinstance(tokens, int) else "unknown"


def turn_files(message: str, asked: Asked, turn_context: str, redacting: bool) -> dict[str, bytes]:
    """The turn folder's files as the model wrote and was sent them, before redaction."""
    retried = attempt_files(asked.attempts) if len(asked.attempts) > 1 else {}
    return {
        USER_PROMPT: (message.rstrip("\n") + "\n").encode(),
        SYSTEM_PROMPT: asked.system.encode(),
        TURN_CONTEXT: turn_context.encode(),
        CONTEXT_LOG: render_context_log(asked.system, asked.payload, not redacting).encode(),
        PLAN: sanitize(asked.attempts[-1].completion.text).encode(),
        **{f"{ATTEMPTS_DIR}/{name}": data for name, data in retried.items()},
        **asked.files,
    }


def record_turn(
    ws: Workspace,
    session: str,
    branch: str,
    tip: str,
    files: dict[str, bytes],
    asked: Asked,
    request_secrets: list[Finding],
    planned: Recorded,
) -> TurnRecord:
    """Commit the turn's files, redacted, right after `tip`, with the figures of every model
    call (earlier failed attempts included, charged once: to this turn)."""
    store = ws.store
    original_plan = files[PLAN]
    files, secrets = redact_files(files)  # before anything reaches the session
    if request_secrets:
        secrets[CONTEXT_LOG] = request_secrets
    failed = _failed_usage(ws.repo.layout.failed_plans(session), store.next_turn(session, branch))
    usage = _with_failed(asked.usage, [figures for _, figures in failed])
    extra = {**usage, "agent_stack": planned.agent_stack, "redactions": summarize(secrets)}
    try:
        record = record_plan(
            store, session, branch, files, planned.agent, planned.base, extra, tip, planned.title
        )
    except ConcurrentUpdateError as moved:
        raise _moved_meanwhile(ws, session, branch, asked.attempts, moved) from None
    if files[PLAN] != original_plan:  # execute runs what the model wrote
        keep_original_plan(store, record, original_plan)
    else:
        forget_original_plan(store, session, record.turn)  # a stale copy must not run
    for path, _ in failed:  # charged once: to this turn
        path.replace(path.with_name(CHARGED_USAGE))
    return record


def no_valid_plan(ws: Workspace, session: str, branch: str, asked: Asked) -> TeddyError:
    """Every reply kept in `failed-plans/` with what it cost, and the error that says so."""
    layout = ws.repo.layout
    turn = ws.store.next_turn(session, branch)
    kept = keep_failed(layout.failed_plans(session), turn, asked.attempts, layout.shared)
    _write_json(kept / FAILED_USAGE, asked.usage, layout.shared)
    return TeddyError(
        f"the plan is not valid after {len(asked.attempts)} attempt(s) "
        f"({_usage_said(asked.usage)}; counted in the turn that gets a valid plan):\n"
        + format_problems(asked.attempts[-1].problems),
        f"every reply is kept in {kept}; fix the plan and record it with "
        "`git teddy plan -m MSG --from-file PLAN.md`",
    )


def _write_json(path: Path, data: dict[str, object], shared: Shared) -> None:
    try:
        path.write_text(json.dumps(data))
        shared.adjust(path)
    except OSError:
        return  # the replies are kept; only their figures are lost


def _failed_usage(folder: Path, turn: str) -> list[tuple[Path, dict[str, object]]]:
    """The figures of the attempts of `turn` that gave no valid plan, not yet charged."""
    found = []
    for path in sorted(folder.glob(f"{turn}-*/{FAILED_USAGE}")):
        try:
            figures = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(figures, dict):
            found.append((path, figures))
    return found


def _with_failed(usage: dict[str, object], failed: list[dict[str, object]]) -> dict[str, object]:
    """`usage` plus the figures of earlier failed attempts: every model call counts."""
    total = dict(usage)
    for figures in failed:
        for key in ("tokens_in", "tokens_out", "cost"):
            mine, theirs = total.get(key), figures.get(key)
            if isinstance(theirs, int | float) and not isinstance(theirs, bool):
                total[key] = (mine if isinstance(mine, int | float) else 0) + theirs
        total["tokens_counted"] = bool(total.get("tokens_counted") or figures.get("tokens_counted"))
    return total


def _usage_said(usage: dict[str, object]) -> str:
    cost = usage.get("cost")
    said = f"${cost:.4f}" if isinstance(cost, float | int) else "cost unknown"
    tokens_in, tokens_out = usage.get("tokens_in"), usage.get("tokens_out")
    return f"{figure(tokens_in)} tokens in, {figure(tokens_out)} out, {said}"


def _moved_meanwhile(
    ws: Workspace, session: str, branch: str, attempts: list[Attempt], moved: TeddyError
) -> TeddyError:
    """The branch moved while the model answered (someone wrote to the session by hand, or
    a git-teddy without the session claim planned): the reply is kept, never lost."""
    turn = ws.store.next_turn(session, branch)
    kept = keep_failed(ws.repo.layout.failed_plans(session), turn, attempts, ws.repo.layout.shared)
    last = kept / f"{len(attempts):02d}.md"
    return TeddyError(
        f"{moved.message}: the session branch {branch} moved while this plan was made, so it "
        "was not recorded",
        f"the model's reply is kept in {last}; look at the session (`git teddy log`), then "
        f"record it with `git teddy plan -m MSG --from-file {shlex.quote(str(last))}`",
    )
