"""A branch's session logs as git holds them: `session.md` and the subagents' own logs
(`subagents/<id>.md`), read one way for `show`, `codify` and `learn`."""

from git_teddy.artifacts.folder import SESSION_LOG, SUBAGENTS_DIR
from git_teddy.artifacts.sessionlog.callouts import subagent_link
from git_teddy.artifacts.sessionlog.model import SessionLog
from git_teddy.artifacts.sessionlog.parse import parse_log
from git_teddy.errors import TeddyError
from git_teddy.session.store import SessionStore


def log_text(store: SessionStore, session: str, branch: str, path: str = SESSION_LOG) -> str:
    """The text of a log file of the branch; a missing one is an error."""
    text = store.read_session_file(store.branches(session)[branch], path)
    if text is None:
        raise TeddyError(
            f"session {session} has no {path} on branch {branch}",
            "it is written by every session commit; plan a turn to create it",
        )
    return text


def branch_log(
    store: SessionStore, session: str, branch: str, path: str = SESSION_LOG
) -> SessionLog:
    """A log file of the branch, parsed; missing or damaged, an error naming it."""
    return parse_log(log_text(store, session, branch, path), f"{path} of {session}")


def subagent_logs(store: SessionStore, session: str, branch: str) -> list[SessionLog]:
    """Every subagent's own log on the branch (`subagents/<id>.md`, linked or embedded),
    by name; a damaged one is an error naming it."""
    tree = store.repo.read_commit(store.branches(session)[branch]).tree
    names = sorted(
        name
        for name, is_dir in store.repo.list_dir(tree, SUBAGENTS_DIR).items()
        if not is_dir and name.endswith(".md")
    )
    return [branch_log(store, session, branch, f"{SUBAGENTS_DIR}/{name}") for name in names]


def embedded_logs(store: SessionStore, log: SessionLog) -> dict[str, SessionLog]:
    """The logs `log` embeds (`![[id]]`, teddy.subagentMode=embed), by id, read from
    `subagents/<id>.md` of the branch the session continues on; one that is missing
    or damaged is left out (its callout then shows the bare embed)."""
    session = log.meta.session_id
    branch = store.current_branch(session)
    found: dict[str, SessionLog] = {}
    _embedded(store, session, branch, log, found)
    return found


def _embedded(
    store: SessionStore, session: str, branch: str, log: SessionLog, found: dict[str, SessionLog]
) -> None:
    for phase in log.phases:
        for callout in phase.callouts("subagent"):
            sub = subagent_link(callout)
            if sub is None or sub in found or f"![[{sub}]]" not in callout.body:
                continue
            try:
                found[sub] = branch_log(store, session, branch, f"{SUBAGENTS_DIR}/{sub}.md")
            except TeddyError:
                continue
            _embedded(store, session, branch, found[sub], found)  # a subagent's own subagents
