"""Reading sessions from git (I/O), only for the sessions that changed. dulwich, yaml and the
session log's pydantic models are imported here, and only when a session has to be read."""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from git_teddy.artifacts.folder import SESSION_FILE_LIMIT, SESSION_LOG
from git_teddy.artifacts.names import is_turn_name
from git_teddy.errors import TeddyError
from git_teddy.gitstore.layout import Layout
from git_teddy.gitstore.plumbing import Location
from git_teddy.index.build import BranchLog, SessionFacts

if TYPE_CHECKING:
    from git_teddy.artifacts.sessionlog.model import Phase
    from git_teddy.gitstore.repo import GitRepo


def read_facts(
    location: Location,
    sessions: Mapping[str, Mapping[str, str]],
    currents: Mapping[str, str],
) -> dict[str, SessionFacts]:
    if not sessions:
        return {}
    from git_teddy.gitstore.repo import GitRepo

    repo = GitRepo(location)  # already located: no second `git rev-parse`
    return {s: read_session(repo, s, tips, currents[s]) for s, tips in sessions.items()}


def read_session(
    repo: "GitRepo", session: str, tips: Mapping[str, str], current: str
) -> SessionFacts:
    from git_teddy.gitstore.snapshot import base_of_session, session_root
    from git_teddy.session.models import iso_time

    commits = {branch: repo.read_commit(tip) for branch, tip in tips.items()}
    logs = {branch: read_branch_log(repo, commit.tree) for branch, commit in commits.items()}
    root = session_root(repo, tips[current])
    last = max(commits.values(), key=lambda c: c.timestamp)
    return SessionFacts(
        id=session,
        tips=dict(tips),
        current=current,
        logs=logs,
        base_snapshot=base_of_session(root),
        root_time=iso_time(root.timestamp, root.tz_offset),
        last_active=iso_time(last.timestamp, last.tz_offset),
        author=root.author,
    )


def read_branch_log(repo: "GitRepo", tree: str) -> BranchLog:
    data = repo.read_bounded(tree, SESSION_LOG, SESSION_FILE_LIMIT)  # cut: its frontmatter
    meta, phases = parse_log_leniently(data.decode("utf-8", "replace") if data else "")
    # The turn folders always: subagent turns are folders but not phases of this log.
    folders = frozenset(
        n for n, is_dir in repo.list_dir(tree).items() if is_dir and is_turn_name(n)
    )
    return BranchLog(meta, phases, folders)


def parse_log_leniently(text: str) -> tuple[dict[str, Any], list["Phase"]]:
    """Frontmatter and phases of a `session.md`. A log that is not one (edited by hand, or
    written before logs had phases) still gives what its frontmatter says."""
    import yaml

    from git_teddy.artifacts import frontmatter
    from git_teddy.artifacts.sessionlog.parse import parse_log

    try:
        log = parse_log(text)
        return log.meta.model_dump(mode="json"), list(log.phases)
    except (TeddyError, yaml.YAMLError):
        pass
    try:
        return frontmatter.parse(text)[0], []
    except yaml.YAMLError:
        return {}, []


def read_current_branches(
    layout: Layout, sessions: Mapping[str, Mapping[str, str]]
) -> dict[str, str]:
    """Each session's current branch, as the session store decides it."""
    return {session: layout.current_branch(session, tips) for session, tips in sessions.items()}
