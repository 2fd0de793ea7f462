"""`learn`'s reading: the learning cases of sessions' logs, every branch's, with their
subagents' logs (inline ones included)."""

from git_teddy.artifacts.names import MAIN_BRANCH
from git_teddy.artifacts.sessionlog.model import SessionLog
from git_teddy.artifacts.sessionlog.reading import inline_subagent_logs
from git_teddy.errors import TeddyError
from git_teddy.learn.cases import Case, dedupe, learn_cases
from git_teddy.session.sessionlogs import branch_log, subagent_logs
from git_teddy.session.store import SessionStore


def all_sessions(store: SessionStore) -> list[str]:
    ids = store.session_ids()
    if not ids:
        raise TeddyError(
            "there are no sessions in this repository yet", "start one with `git teddy new <name>`"
        )
    return ids


def sessions_cases(
    store: SessionStore, sessions: list[str], named: bool, types: tuple[str, ...]
) -> tuple[list[Case], list[str]]:
    """The cases of `types` in the sessions' logs, and a warning per log passed over."""
    logs, skipped = _logs(store, sessions, named)
    return dedupe([case for log in logs for case in learn_cases(log, types)]), skipped


def _logs(
    store: SessionStore, sessions: list[str], named: bool
) -> tuple[list[SessionLog], list[str]]:
    """The logs of every branch of each session, with their subagents' logs. A log that
    does not parse stops the command when its session was named, else it is passed over."""
    logs: list[SessionLog] = []
    skipped: list[str] = []
    for session in sessions:
        branches = sorted(store.branches(session), key=lambda b: (b != MAIN_BRANCH, b))
        for branch in branches:
            try:
                log = branch_log(store, session, branch)
                logs += [log, *inline_subagent_logs(log), *subagent_logs(store, session, branch)]
            except TeddyError as error:
                if named:
                    raise
                skipped.append(f"warning: {error.message}; skipped")
    return logs, skipped
