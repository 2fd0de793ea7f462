"""teddy.autoCommit: an applied result committed to the user's branch, as Aider commits each
change. Only the turn's own files go in (`gitstore.usercommit`: `git commit --only`), with
the plan's title as subject, the turn's message below it and the turn's trailers; a result
that merged with the user's edits of those files, or left conflicts, is not committed (the
commit would hold the user's work as the turn's), and the user is told why."""

from git_teddy.artifacts.folder import USER_PROMPT
from git_teddy.artifacts.trailers import format_message
from git_teddy.errors import TeddyError
from git_teddy.gitstore.apply import ApplyResult, tree_changes
from git_teddy.gitstore.usercommit import commit_paths
from git_teddy.session.turns import PendingTurn
from git_teddy.session.workspace import Workspace
from git_teddy.settings import AUTO_COMMIT
from git_teddy.ui import UI

SHOWN = 5  # paths named in a note


def commit_message(title: str, prompt: str, session: str, turn: str, result: str) -> str:
    """The auto-commit's message: subject, the turn's message as its body, the trailers
    (the result snapshot's too, as the commit hook adds it: the session records the commit
    as the one that took the result)."""
    subject = " ".join(title.split()) or f"teddy: turn {turn}"
    trailers = {"Teddy-Session": session, "Teddy-Turn": turn, "Teddy-Snapshot": result}
    return format_message(subject, trailers, prompt)


def _prompt(ws: Workspace, turn: PendingTurn) -> str:
    tip = ws.store.branches(turn.session)[turn.branch]
    data = ws.repo.read_file(ws.repo.read_commit(tip).tree, f"{turn.turn}/{USER_PROMPT}")
    return (data or b"").decode("utf-8", "replace")


def commit_result(
    ws: Workspace,
    ui: UI,
    turn: PendingTurn,
    title: str,
    states: tuple[str, str],
    applied: ApplyResult,
) -> str | None:
    """The commit of the applied result when teddy.autoCommit asks for one (None: none
    made, and the user was told why when it was asked for). `states`: the user's files
    before applying, and the turn's result (snapshots)."""
    if not ws.settings.flag(AUTO_COMMIT):
        return None
    if applied.conflicts:
        ui.progress("not committed (teddy.autoCommit): resolve the conflicts, then commit")
        return None
    (user_state, result), base = states, turn.record.base_snapshot
    changes = tree_changes(ws.repo, base, result)
    paths = [c.path for c in changes if not (c.old_gitlink or c.new_gitlink)]
    yours = {c.path for c in tree_changes(ws.repo, base, user_state)} & set(paths)
    if yours:
        named = ", ".join(sorted(yours)[:SHOWN])
        ui.progress(f"not committed (teddy.autoCommit): it merged with your edits of {named}")
        return None
    message = commit_message(title, _prompt(ws, turn), turn.session, turn.turn, result)
    try:
        commit = commit_paths(ws.repo, paths, message)
    except TeddyError as refused:
        ui.progress(f"not committed (teddy.autoCommit): {refused.message}")
        ui.progress(f"hint: {refused.hint}")
        return None
    ui.progress(f"committed as {commit[:12]} (teddy.autoCommit)")
    return commit
