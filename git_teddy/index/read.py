"""Reading sessions from git (I/O), only for the sessions that changed: all of them in three
git processes whatever their number (a first `list` after fetching a team's thousands of
sessions reads each one's tip commits, trees and `session.md`, and its root, nothing else).
yaml and the session log's pydantic models are imported here, and only when a session has
to be read; dulwich only for a session the bulk read could not take (an object missing)."""

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from git_teddy.artifacts.folder import SESSION_FILE_LIMIT, SESSION_LOG
from git_teddy.artifacts.names import is_turn_name
from git_teddy.errors import TeddyError
from git_teddy.gitstore import batchread
from git_teddy.gitstore.changes import CutBlob
from git_teddy.gitstore.layout import Layout
from git_teddy.gitstore.plumbing import Location
from git_teddy.gitstore.runner import GitFailed
from git_teddy.index.build import BranchLog, SessionFacts

if TYPE_CHECKING:
    from git_teddy.artifacts.sessionlog.model import Phase
    from git_teddy.gitstore.repo import GitRepo

Sessions = Mapping[str, Mapping[str, str]]  # session -> branch -> tip


def read_facts(
    location: Location,
    sessions: Sessions,
    currents: Mapping[str, str],
) -> dict[str, SessionFacts]:
    if not sessions:
        return {}
    facts = read_in_bulk(location.cwd, sessions, currents)
    rest = {s: tips for s, tips in sessions.items() if s not in facts}
    if rest:  # one at a time, as GitRepo reads: its errors name what is missing
        from git_teddy.gitstore.repo import GitRepo

        repo = GitRepo(location)  # already located: no second `git rev-parse`
        facts |= {s: read_session(repo, s, tips, currents[s]) for s, tips in rest.items()}
    return facts


def read_in_bulk(
    cwd: Path, sessions: Sessions, currents: Mapping[str, str]
) -> dict[str, SessionFacts]:
    """The sessions' facts from one `git rev-list` (each current branch's root) and one
    `git cat-file --batch` (each tip's commit, tree and `session.md`, each root), read as
    they come. A session with an object git does not have is left out."""
    try:
        roots = batchread.first_parent_roots((t[currents[s]] for s, t in sessions.items()), cwd)
    except GitFailed:
        return {}  # a history git cannot walk: read_session says what is missing
    specs = [
        spec
        for tips in sessions.values()
        for tip in tips.values()
        for spec in (tip, f"{tip}^{{tree}}", f"{tip}:{SESSION_LOG}")
    ]
    root_ids = list(dict.fromkeys(roots.values()))
    found = batchread.read_objects([*specs, *root_ids], SESSION_FILE_LIMIT, cwd)
    read = {s: _bulk_branches(tips, found) for s, tips in sessions.items()}
    root_commits = dict(zip(root_ids, map(_commit, found), strict=True))  # to git's end
    facts = {}
    for session, branches in read.items():
        root = root_commits.get(roots.get(sessions[session][currents[session]], ""))
        if branches is not None and root is not None:
            facts[session] = _facts(session, sessions[session], currents[session], branches, root)
    return facts


BranchRead = tuple["batchread.CommitFields", BranchLog]


def _bulk_branches(
    tips: Mapping[str, str], found: Iterator[batchread.Found | None]
) -> dict[str, BranchRead] | None:
    """Each branch's tip commit and log, from the next three objects per branch."""
    branches: dict[str, BranchRead] | None = {}
    for branch in tips:
        commit, names, log = _commit(next(found)), _names(next(found)), next(found)
        if branches is None or commit is None or names is None:
            branches = None  # the objects still to take are taken all the same
            continue
        text = log.data.decode("utf-8", "replace") if log and log.kind == "blob" else ""
        meta, phases = parse_log_leniently(text)
        folders = frozenset(n for n, is_dir in names.items() if is_dir and is_turn_name(n))
        branches[branch] = (commit, BranchLog(meta, phases, folders))
    return branches


def _commit(obj: "batchread.Found | None") -> "batchread.CommitFields | None":
    """A commit read whole (one past the limit, or damaged, is left to read_session)."""
    if obj is None or obj.kind != "commit" or isinstance(obj.data, CutBlob):
        return None
    try:
        return batchread.parse_commit(obj.sha, obj.data)
    except ValueError:
        return None


def _names(obj: "batchread.Found | None") -> dict[str, bool] | None:
    """A tree's names, each mapped to whether it is a folder; None as for _commit."""
    if obj is None or obj.kind != "tree" or isinstance(obj.data, CutBlob):
        return None
    try:
        return batchread.tree_names(obj.sha, obj.data)
    except ValueError:
        return None


def _facts(
    session: str,
    tips: Mapping[str, str],
    current: str,
    branches: Mapping[str, BranchRead],
    root: "batchread.CommitFields",
) -> SessionFacts:
    from git_teddy.artifacts.trailers import parse_trailers
    from git_teddy.session.models import iso_time

    last = max((commit for commit, _ in branches.values()), key=lambda c: c.timestamp)
    return SessionFacts(
        id=session,
        tips=dict(tips),
        current=current,
        logs={branch: log for branch, (_, log) in branches.items()},
        base_snapshot=parse_trailers(root.message).get("Teddy-Snapshot"),
        root_time=iso_time(root.timestamp, root.tz_offset),
        last_active=iso_time(last.timestamp, last.tz_offset),
        author=root.author,
    )


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
        log = parse_log(text, blocks=False)  # each phase's heading and figures
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
