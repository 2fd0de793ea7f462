"""`git teddy execute`: run the pending plan of a session in a scratch worktree, snapshot
the result, write the report commit, and bring the result into the user's working tree."""

import shlex
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from git_teddy.artifacts.memos import MEMOS_PATH, apply_memo_changes, parse_memos, render_memos
from git_teddy.artifacts.paths import PathRefused, confine
from git_teddy.artifacts.plan import PlanError, format_problems, parse_plan
from git_teddy.artifacts.plan.casefold import case_problems
from git_teddy.artifacts.plan.models import (
    Action,
    ChatWithUser,
    Conclude,
    Create,
    EditFile,
    Execute,
    Invoke,
    Memo,
    Plan,
    Prune,
    Read,
    Research,
)
from git_teddy.artifacts.plan.submodules import submodule_problems, written_paths
from git_teddy.artifacts.read_parts import split_part
from git_teddy.artifacts.report import (
    ActionLog,
    ExecutionReport,
    MemoReport,
    RunSummary,
    render_report,
)
from git_teddy.artifacts.turn_record import TurnRecord
from git_teddy.artifacts.yamlio import YAML_LIMIT
from git_teddy.errors import ConcurrentUpdateError, TeddyError
from git_teddy.execute.actions import ActionEnv, params_of, run_action
from git_teddy.execute.approval import describe, format_memos
from git_teddy.execute.autocommit import commit_result
from git_teddy.execute.journal import (
    INTERRUPTED,
    JournalFile,
    interrupts_deferred,
    open_journal,
)
from git_teddy.faultpoint import reached
from git_teddy.gitstore.apply import ApplyResult, CannotApply, apply_to_worktree, tree_changes
from git_teddy.gitstore.pool import ignored_dependencies
from git_teddy.gitstore.saved_paths import snapshot_paths
from git_teddy.gitstore.scratch_files import ScratchFiles, scratch_files
from git_teddy.hooks import hook_source
from git_teddy.redact import Finding, redact, summarize
from git_teddy.session.claims import claim_session
from git_teddy.session.store import SessionStore, applying_subject
from git_teddy.session.turns import (
    PendingTurn,
    forget_original_plan,
    pending_turn,
    plan_to_run,
    record_report,
)
from git_teddy.session.workspace import Workspace
from git_teddy.settings import (
    APPLY,
    EXECUTE_OUTPUT_CAP,
    EXECUTE_TIMEOUT,
    SEARCH_URL,
    WEB_ALLOW_PRIVATE,
    WORKTREE_DEPENDENCIES,
    WORKTREE_DIR,
    WORKTREE_LINK,
)
from git_teddy.ui import UI, Decision

if TYPE_CHECKING:
    from git_teddy.gitstore.worktree import Worktree

APPLY_DIFF_LINES = 200  # of the diff teddy.apply=ask shows before it asks
STOPPED_BY_USER = "skipped: stopped by the user"  # an action after the one the user quit at
# The result kept as a snapshot by the user's choice (teddy.apply never, or no at `ask`): not a
# failure, so execute exits 0; approved memos are written to the user's memos file anyway.
NOT_APPLIED_BY_CHOICE = "not applied (teddy.apply)"


@dataclass(frozen=True)
class ExecutionResult:
    turn: PendingTurn
    report: ExecutionReport
    record: TurnRecord
    apply: ApplyResult | None
    user_state: str | None


def find_pending(store: SessionStore, session: str) -> PendingTurn:
    branches = store.branches(session)
    order = [store.current_branch(session), *sorted(branches)]
    for branch in dict.fromkeys(order):
        pending = pending_turn(store, session, branch)
        if pending:
            return pending
    raise TeddyError(
        f"nothing to execute in session {session}: every planned turn has its report",
        "plan the next turn with `git teddy plan -m MESSAGE`",
    )


def _memo_step(ui: UI, memos: list[Memo], tree: Path) -> MemoReport:
    proposed = [f"[{m.op}] {m.text}" for m in memos]
    if not memos:
        return MemoReport()
    ui.show("Proposed memo changes:\n" + format_memos(memos))
    if not ui.approve_memos(memos):
        return MemoReport(proposed=proposed, decision="rejected")
    _write_memos(tree, memos)
    return MemoReport(proposed=proposed, decision="approved")


def _memos_to_worktree(ws: Workspace, memos: list[Memo], decided: MemoReport) -> None:
    """Approved memo changes of a turn whose result is not applied (teddy.apply): the
    user's own `.teddy/memos.yaml` gets them, as it would have with the result (spec 000:
    approved memos are written whatever becomes of the files)."""
    if decided.decision != "approved" or not memos:
        return
    _write_memos(ws.repo.toplevel, memos)


def _write_memos(tree: Path, memos: list[Memo]) -> None:
    """The memo changes applied to `tree`'s `.teddy/memos.yaml`."""
    try:
        path = confine(tree, MEMOS_PATH)  # a symlinked .teddy/ is not written through
    except PathRefused as refused:
        raise TeddyError(
            f"memos not written: {refused}", "replace the symlink by a folder"
        ) from None
    current = parse_memos(_memos_text(path)) if path.is_file() else []
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_memos(apply_memo_changes(current, memos)), encoding="utf-8")


def _memos_text(path: Path) -> str:
    """The memos file, read within the YAML limit (more is refused, unread)."""
    with path.open("rb") as file:
        return file.read(YAML_LIMIT + 1).decode("utf-8", "replace")


def _log(index: int, action: Action, status: str, **extra: object) -> ActionLog:
    return ActionLog.model_validate(
        {
            "index": index,
            "action_type": action.type,
            "description": getattr(action, "description", None),
            "params": params_of(action),
            "status": status,
            **extra,
        }
    )


def _written(action: Action) -> list[str] | None:
    """What an action may write in the worktree: the file a CREATE or EDIT names, nothing
    for those that only read or talk, None (anything) for a command and any other."""
    if isinstance(action, Create | EditFile):
        return [action.path]
    if isinstance(action, Read | Research | ChatWithUser | Invoke | Conclude | Prune):
        return []
    return None


def _run_actions(
    plan: Plan,
    ui: UI,
    env: ActionEnv,
    journal: JournalFile,
    state: Callable[[], str],
    wrote: Callable[[list[str] | None], None],
) -> None:
    """Run the actions the journal does not list as done; each one journaled before it
    starts and after it ends (with the worktree's `state`, told first what the action may
    have written)."""
    logs, status = list(journal.journal.actions), journal.journal.status
    total = len(plan.actions)
    approve_rest = False  # "all remaining" holds for the rest of this plan only
    for index, action in enumerate(plan.actions, start=1):
        if index <= len(logs):
            continue  # done by an interrupted run: never run twice
        if journal.journal.running == index:
            status = "FAILURE"  # it may have run, wholly or in part: never run twice
            logs.append(_log(index, action, "FAILURE", summary=INTERRUPTED))
            journal.update(actions=logs, status=status, running=None)
            continue
        if status != "SUCCESS":
            # After a `q` nothing failed: the log must not say "an earlier action failed".
            why = STOPPED_BY_USER if status == "ABORTED" else None
            logs.append(_log(index, action, "SKIPPED", reason=why))
            continue
        # Asked about, an action is shown whatever -q says; run without asking, it is a step.
        say = ui.step if ui.unattended else ui.show
        say(f"\n[{index}/{total}] {describe(action)}")
        decision = Decision("auto") if approve_rest else ui.approve_action(action)
        approve_rest = approve_rest or decision.approve_rest
        if decision.verdict == "quit":
            status = "ABORTED"
            logs.append(_log(index, action, "SKIPPED", reason="the user quit"))
            continue
        if decision.verdict == "rejected":
            ui.show("  rejected")
            logs.append(
                _log(index, action, "REJECTED", approval="rejected", reason=decision.reason)
            )
            continue
        with interrupts_deferred():
            journal.update(actions=logs, running=index)
        try:
            outcome = run_action(action, env)
        except KeyboardInterrupt:
            # Ctrl-C stopped the command (its process group is killed): the worktree goes back
            # to its state before it on the next run, which runs it again, and the rest.
            with interrupts_deferred():
                journal.update(running=None)
            raise
        wrote(_written(action))
        with interrupts_deferred():
            say(f"  {'ok' if outcome.ok else 'FAILED'}: {outcome.summary}")
            logs.append(
                _log(
                    index,
                    action,
                    "SUCCESS" if outcome.ok else "FAILURE",
                    approval=decision.verdict,
                    summary=outcome.summary,
                    details=outcome.details,
                )
            )
            if not outcome.ok:
                status = "FAILURE"  # the first failure stops the plan
            journal.update(actions=logs, status=status, running=None, tree=state())
        reached(f"execute.action.{index}")
    journal.update(actions=logs, status=status)  # rejected, skipped, the user quit


def _redact_logs(logs: list[ActionLog]) -> tuple[list[ActionLog], list[dict[str, object]]]:
    """Command output and replies with their secrets replaced, and where they were; the
    summary too, which quotes a failed command's first error line."""
    found: dict[str, list[Finding]] = {}
    clean = []
    for log in logs:
        details = dict(log.details)
        for key, value in details.items():
            details[key], secrets = _redact_value(value)
            if secrets:
                found[f"action {log.index} ({log.action_type}) {key}"] = secrets
        summary, secrets = redact(log.summary) if log.summary else (log.summary, [])
        if secrets:
            found[f"action {log.index} ({log.action_type}) summary"] = secrets
        clean.append(log.model_copy(update={"details": details, "summary": summary}))
    return clean, summarize(found)


def _failed_tests(logs: list[ActionLog]) -> list[str]:
    """The failing tests of the failed EXECUTEs, for the top of the report."""
    found = []
    for log in logs:
        failed = log.details.get("failed_tests") if log.status == "FAILURE" else None
        if isinstance(failed, dict):
            found += [f"action {log.index}: {line}" for line in failed.get("tests", [])]
    return found


def _redact_value(value: object) -> tuple[object, list[Finding]]:
    """A detail with its secrets replaced, strings inside lists and mappings too (an EDIT's
    regions, the failing tests' lines)."""
    if isinstance(value, str):
        return redact(value)
    found: list[Finding] = []
    if isinstance(value, list):
        items = [_redact_value(item) for item in value]
        return [item for item, _ in items], [f for _, fs in items for f in fs]
    if isinstance(value, dict):
        pairs = {key: _redact_value(item) for key, item in value.items()}
        return {key: item for key, (item, _) in pairs.items()}, [
            f for _, fs in pairs.values() for f in fs
        ]
    return value, found


def _lost_submodule_changes(worktree: "Worktree") -> list[str]:
    """A superproject snapshot holds a submodule's commit, not its files: what a command
    changed inside one is not part of the result, and the user is told so."""
    return [
        f"changes inside submodule {path} are not part of the result "
        "(run git teddy in the submodule's own repository to change it)"
        for path in worktree.changed_submodules()
    ]


def _runtime_hooks(store: SessionStore) -> Path:
    """The shipped post-commit hook, copied where it can be made executable."""
    layout = store.repo.layout
    folder = layout.shared.make_folders(layout.runtime_hooks)
    hook = folder / "post-commit"
    source = hook_source("post-commit")
    if not hook.exists() or hook.read_bytes() != source:
        hook.write_bytes(source)
        hook.chmod(0o755)
        layout.shared.adjust(hook)
    return folder


def _snapshot(store: SessionStore, worktree: "Worktree", base: str, turn: str) -> str:
    """Commit the worktree's whole state on top of `base`; the post-commit hook reports the id.
    The worktree is then settled at it (the next run moves it from there)."""
    tree = worktree.state()
    if tree == store.repo.read_commit(base).tree:
        worktree.settle(base, store.repo.layout.shared)
        return base
    with tempfile.TemporaryDirectory() as scratch:
        pending = Path(scratch) / "snapshot-id"
        head = worktree.commit_tree(
            tree,
            f"teddy: snapshot after turn {turn}",
            _runtime_hooks(store),
            {"TEDDY_PENDING_REPORT": str(pending)},
        )
        snapshot = pending.read_text().strip() if pending.exists() else ""
    if snapshot != head:
        raise TeddyError(
            "the post-commit hook did not record the snapshot",
            "check that the scratch worktree can run hooks",
        )
    worktree.settle(snapshot, store.repo.layout.shared)
    return snapshot


def _apply(
    ws: Workspace,
    ui: UI,
    turn: PendingTurn,
    snapshot: str,
) -> tuple[ApplyResult | None, str | None, bool | str]:
    mode = ws.settings.choice(APPLY)
    if snapshot == turn.record.base_snapshot:
        return None, None, "nothing to apply"
    if mode == "ask" and not ui.unattended:  # -y approves without asking, so without showing
        ui.show(_change_to_apply(ws, turn.record.base_snapshot, snapshot))
    if mode == "never" or (mode == "ask" and not ui.approve_apply()):
        return None, None, NOT_APPLIED_BY_CHOICE
    # Whatever the user has now at the paths applying writes is saved first, so applying
    # can always be undone; their other files are neither read nor written (issue 31).
    base = turn.record.base_snapshot
    changes = tree_changes(ws.repo, base, snapshot)
    subject = applying_subject(turn.turn)
    user_state = snapshot_paths(ws.repo, subject, base, [change.path for change in changes])
    ws.store.keep_snapshot(turn.session, user_state)
    try:
        result = apply_to_worktree(
            ws.repo, base, snapshot, user_state, f"turn {turn.turn}", changes
        )
    except CannotApply as refused:
        # The turn is done and reported either way; its result stays a snapshot.
        ui.progress(f"not applied: {refused.message}")
        if refused.hint:
            ui.progress(f"hint: {refused.hint}")
        return None, user_state, f"not applied: {refused.message}"
    if result.merged:  # blobs no result holds: the commit hook names the turn by this record
        ws.repo.layout.note_applied_by(result.written_blobs, turn.session, turn.turn, snapshot)
    for note in result.gitlinks:
        ui.progress(note.line())
    if result.conflicts:  # applied where it merged; the rest is the user's to resolve
        return result, user_state, f"conflicts in: {', '.join(result.conflicts)}"
    return result, user_state, True


def _change_to_apply(ws: Workspace, base: str, snapshot: str) -> str:
    """What `teddy.apply=ask` asks about: the change's --stat, then its diff (shown
    without a pager, cut after APPLY_DIFF_LINES lines, with the `git diff` that has it whole)."""
    stat = ws.repo.diff_stat(base, snapshot).rstrip("\n")
    lines = ws.repo.diff_texts([(base, snapshot)])[0].splitlines()
    shown = lines[:APPLY_DIFF_LINES]
    if len(lines) > len(shown):
        rest = len(lines) - len(shown)
        shown.append(f"... {rest} more line(s); the whole change: git diff {base} {snapshot}")
    return "\n".join(["\nThe change to apply:", stat, "", *shown])


def _runnable_plan(ws: Workspace, turn: PendingTurn, plan_text: str, start: str) -> Plan:
    """The turn's plan, checked before anything runs. One that is not valid (a path into
    `.git` or too long, recorded by an older git-teddy or by hand) never will be: the turn
    is recorded as failed so the session moves on."""
    try:
        plan = parse_plan(plan_text)
    except PlanError as error:
        raise record_failed_execution(
            ws, turn, start, f"its plan is not valid: {error.message}"
        ) from None
    _refuse_submodule_writes(ws, turn, plan)
    return plan


def _refuse_submodule_writes(ws: Workspace, turn: PendingTurn, plan: Plan) -> None:
    """Before anything runs: a CREATE or EDIT inside a submodule would be lost (planning
    refuses such plans; this one was recorded otherwise, by an older git-teddy say)."""
    paths = written_paths(plan)
    links = ws.repo.gitlinks_at(turn.record.base_snapshot, paths) if paths else {}
    problems = submodule_problems(plan, links)
    if paths and ws.repo.ignores_case():  # one file under two cases (core.ignoreCase)
        folded = case_problems(plan, ws.repo.spelled_as_in(turn.record.base_snapshot, paths))
        if folded:
            raise TeddyError(
                f"the plan of turn {turn.turn} writes one file under two names:\n"
                + format_problems(folded),
                "plan it again with the paths as the repository spells them: "
                f"`git teddy branch {shlex.quote(turn.turn)} -m MESSAGE`",
            )
    if problems:
        raise TeddyError(
            f"the plan of turn {turn.turn} writes inside a submodule:\n"
            + format_problems(problems),
            "plan it again without those writes: "
            f"`git teddy branch {shlex.quote(turn.turn)} -m MESSAGE`; "
            "to change a submodule, run git teddy in its own repository",
        )


def record_failed_execution(
    ws: Workspace, turn: PendingTurn, start: str, reason: str
) -> TeddyError:
    """Record `turn` as failed with `reason`, no result applied, so the session moves on
    (a run that could not finish would fail the same way forever, and `plan` would wait
    for it); the error to stop the command with is returned."""
    reason, _ = redact(reason)
    summary = RunSummary(
        status="FAILURE",
        start_time=start,
        end_time=ws.store.now().isoformat(),
        base_snapshot=turn.record.base_snapshot,
        snapshot=turn.record.base_snapshot,
        applied="not applied: the execution failed",
        notes=[f"the execution failed: {reason}"],
    )
    report = ExecutionReport(run_summary=summary)
    record = turn.record.model_copy(
        update={
            "status": "failure",
            "snapshot": turn.record.base_snapshot,
            "executed_at": summary.end_time,
        }
    )
    record_report(ws.store, turn, render_report(report).encode(), record)
    forget_original_plan(ws.store, turn.session, turn.turn)
    return TeddyError(
        f"turn {turn.turn} failed: {reason}",
        "it is recorded as failed (`git teddy show` has the report) and nothing was applied "
        "to your working tree; plan the next turn with `git teddy plan -m MESSAGE`",
    )


@contextmanager
def _recorded_if_failing(ws: Workspace, turn: PendingTurn, journal: JournalFile) -> Iterator[None]:
    """Once actions may have run, an error no longer leaves the turn pending: rerunning
    would repeat their side effects and fail the same way."""
    try:
        yield
    except (ConcurrentUpdateError, BrokenPipeError):
        raise  # another process recorded the turn; the reader went away
    except (TeddyError, OSError) as error:
        reason = error.message if isinstance(error, TeddyError) else str(error)
        failed = record_failed_execution(ws, turn, journal.journal.start_time, reason)
        journal.remove()
        raise failed from None


def execute_turn(ws: Workspace, session: str, ui: UI) -> ExecutionResult:
    """Run the session's pending plan, asking `ui` to approve memos, actions and applying.
    The session is claimed first (one execute at a time), and each step is journaled: a
    run killed midway is resumed here, never repeated."""
    store = ws.store
    with claim_session(store, session, "execute") as claim:
        turn = find_pending(store, session)
        claim.working_on(turn.turn)
        reached("execute.claimed")
        return _execute_claimed(ws, ui, turn)


def _open_journal(ws: Workspace, turn: PendingTurn, ui: UI) -> JournalFile:
    store, layout = ws.store, ws.repo.layout
    path = layout.execute_journal(turn.session, turn.turn)
    plan_commit = store.branches(turn.session)[turn.branch]
    journal = open_journal(path, layout.shared, plan_commit, store.now().isoformat())
    if journal.resumed:
        ui.progress(f"note: resuming turn {turn.turn}, whose execute was interrupted:")
        for line in journal.recovered():
            ui.progress(f"  {line}")
    return journal


def _execute_claimed(ws: Workspace, ui: UI, turn: PendingTurn) -> ExecutionResult:
    store, session = ws.store, turn.session
    ws.repo.check_signing()  # the result is applied before the report commit is signed
    ws.repo.check_ref_writable(store.branch_ref(session, turn.branch))  # the same for its lock
    plan_text, redacted = plan_to_run(store, turn)
    if redacted:
        ui.show(
            f"note: the plan of turn {turn.turn} contains redacted values ([REDACTED:...]); "
            "the model's original is not kept in this repository, so they are used as written"
        )
    plan = _runnable_plan(ws, turn, plan_text, store.now().isoformat())  # it may record
    journal = _open_journal(ws, turn, ui)
    if journal.journal.snapshot is None:
        _run_plan(ws, ui, turn, plan, journal)
    done = journal.journal
    snapshot, status, notes = str(done.snapshot), done.status, done.notes
    with _recorded_if_failing(ws, turn, journal):
        store.keep_snapshot(session, snapshot)
        if done.applied is None:
            applied, user_state, applied_note = _apply(ws, ui, turn, snapshot)
            if applied_note == NOT_APPLIED_BY_CHOICE and done.memos:
                _memos_to_worktree(ws, plan.memos, done.memos)
            journal.update(user_state=user_state, applied=applied_note)
            if applied and user_state:
                states = (user_state, snapshot)
                committed = commit_result(ws, ui, turn, plan.title, states, applied)
                journal.update(committed=committed)
        else:  # applied by the interrupted run
            applied, user_state, applied_note = None, done.user_state, done.applied
    logs, redactions = _redact_logs(done.actions)
    summary = RunSummary(
        status=status,
        start_time=done.start_time,
        end_time=store.now().isoformat(),
        base_snapshot=turn.record.base_snapshot,
        snapshot=snapshot,
        applied=applied_note,
        notes=notes,
        committed=journal.journal.committed,
        failed_tests=_failed_tests(logs),
    )
    report = ExecutionReport(
        run_summary=summary,
        memos=done.memos or MemoReport(),
        action_logs=logs,
        redactions=redactions,
    )
    record = turn.record.model_copy(
        update={
            "status": status.lower(),
            "snapshot": snapshot,
            "executed_at": summary.end_time,
        }
    )
    reached("execute.applied")  # the fault suite's kill between applying and the report
    record_report(store, turn, render_report(report).encode(), record)
    journal.remove()
    forget_original_plan(store, session, turn.turn)
    reached("execute.reported")
    return ExecutionResult(turn, report, record, applied, user_state)


def _touched_paths(plan: Plan) -> list[str] | None:
    """The files a plan without commands reads or writes (memos included); None when it runs
    a command, which may touch any file: it needs a checkout."""
    if any(isinstance(action, Execute) for action in plan.actions):
        return None
    paths = [MEMOS_PATH] if plan.memos else []
    for action in plan.actions:
        if isinstance(action, Create | EditFile):
            paths.append(action.path)
        elif isinstance(action, Read) and action.kind == "file":
            paths.append(split_part(action.resource)[0])
    return paths


def _links(ws: Workspace) -> list[str]:
    """The ignored paths linked into the scratch worktree: teddy.worktree.link's, and the
    dependency folders the project has (teddy.worktree.linkDependencies)."""
    links = [*ws.settings.paths(WORKTREE_LINK)]
    if ws.settings.flag(WORKTREE_DEPENDENCIES):
        links += [name for name in ignored_dependencies(ws.repo.toplevel) if name not in links]
    return links


def _run_plan(ws: Workspace, ui: UI, turn: PendingTurn, plan: Plan, journal: JournalFile) -> None:
    """Memos and actions, then the result snapshot. A plan that runs no command needs no
    checkout: only the files it names are checked out, and its result is the base tree
    with the files it changed (issue 16 P1); any other plan runs in a scratch worktree."""
    links, pool_dir = _links(ws), ws.settings.text(WORKTREE_DIR)
    paths = _touched_paths(plan)
    if paths is not None:
        start = journal.journal.tree or turn.record.base_snapshot
        with scratch_files(ws.repo, start, paths, links, pool_dir) as files:
            if files is not None:
                _run_on_files(ws, ui, turn, plan, journal, files)
                return
    _run_in_worktree(ws, ui, turn, plan, journal, links, pool_dir)


def _run_steps(
    ws: Workspace,
    ui: UI,
    session: str,
    plan: Plan,
    journal: JournalFile,
    root: Path,
    state: Callable[[], str],
    worktree: "Worktree | None" = None,
) -> None:
    """The memo step and the actions, with the files at `root` (a scratch worktree's, where
    commands run, or the scratch files of a plan that runs none)."""
    wrote = worktree.wrote if worktree is not None else lambda _paths: None
    if journal.journal.memos is None:
        memo_report = _memo_step(ui, plan.memos, root)
        wrote([MEMOS_PATH] if memo_report.decision == "approved" else [])
        journal.update(memos=memo_report, tree=state())
    env = ActionEnv(
        root=root,
        timeout=float(ws.settings.integer(EXECUTE_TIMEOUT)),
        output_cap=ws.settings.integer(EXECUTE_OUTPUT_CAP),
        search_url=ws.settings.text(SEARCH_URL) or None,
        ui=ui,
        allow_private=ws.settings.flag(WEB_ALLOW_PRIVATE),
        approve_url=lambda url: ws.repo.layout.approve_urls(session, [url]),
    )
    if worktree is not None:
        env.on_child = worktree.record_child
        env.environ = worktree.command_environ()  # the user's hooks run for none of it
    _run_actions(plan, ui, env, journal, state, wrote)


def _run_on_files(
    ws: Workspace, ui: UI, turn: PendingTurn, plan: Plan, journal: JournalFile, files: ScratchFiles
) -> None:
    """A plan without commands on the files it names; its result is a commit of the base
    tree with the files it changed (no worktree: nothing to reset, scan or stage)."""
    with _recorded_if_failing(ws, turn, journal):
        _run_steps(ws, ui, turn.session, plan, journal, files.root, files.state)
        tree, base = files.state(), turn.record.base_snapshot
        snapshot = base
        if tree != ws.repo.tree_of(base):
            snapshot = ws.repo.write_commit(tree, [base], f"teddy: snapshot after turn {turn.turn}")
    journal.update(snapshot=snapshot, notes=[])
    reached("execute.snapshot")


def _run_in_worktree(
    ws: Workspace,
    ui: UI,
    turn: PendingTurn,
    plan: Plan,
    journal: JournalFile,
    links: list[str],
    pool_dir: str,
) -> None:
    """Memos and actions in a scratch worktree, then its state as the result snapshot; the
    journal records each step (an interrupted run's worktree state is put back first)."""
    # imported here: a plan without commands (most turns) needs no worktree module
    from git_teddy.gitstore.worktree import scratch_worktree

    recorded = _recorded_if_failing(ws, turn, journal)  # once the worktree is ready
    base = turn.record.base_snapshot
    with scratch_worktree(ws.repo, base, links, pool_dir) as worktree, recorded:
        if worktree.recovered_stale:
            ui.show("note: cleaned up a scratch worktree left behind by an interrupted run")
        for note in worktree.recovery:
            ui.show(f"note: {note}")
        for note in worktree.notes:
            ui.show(f"note: {note}")
        notes = [*worktree.notes]
        if journal.journal.tree:
            worktree.restore_state(journal.journal.tree)
        _run_steps(ws, ui, turn.session, plan, journal, worktree.path, worktree.state, worktree)
        lost = _lost_submodule_changes(worktree)
        snapshot = _snapshot(ws.store, worktree, turn.record.base_snapshot, turn.turn)
    for note in lost:
        ui.show(f"note: {note}")
    journal.update(snapshot=snapshot, notes=[*notes, *lost])
    reached("execute.snapshot")
