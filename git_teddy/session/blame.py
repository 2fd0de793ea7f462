"""`git teddy blame`: which session and turn last changed each line of a file.

Snapshots form a history (each turn's result is a commit on the state it started from)
whose base snapshot was taken on the user's HEAD (its `Teddy-Head` trailer; a base snapshot
of the old shape has HEAD as its parent instead). `git blame` of the working tree, as a
commit on top of the newest turn snapshot holding the file, with each base snapshot grafted
on the HEAD it was taken on for this blame alone, names for every line the commit that
brought it: a turn's snapshot, a commit of the user's (which may carry Teddy-* trailers from
the hook), or nothing yet: the user's own edit. A turn that changed nothing (a failed EDIT,
`true`) has its base as its result, a commit that is not its own, so it is credited with no
line.

Paths are taken as git takes them: relative to the current directory, or to the top of the
working tree with git's `:/path` (or `:(top)path`) magic.
"""

import posixpath
from dataclasses import dataclass

from git_teddy.artifacts.folder import TURN_RECORD
from git_teddy.artifacts.paths import PathRefused, confine
from git_teddy.artifacts.trailers import parse_trailers
from git_teddy.artifacts.turn_base import base_snapshot
from git_teddy.errors import TeddyError
from git_teddy.gitstore import snapshot_worktree
from git_teddy.gitstore.changes import is_null_id
from git_teddy.gitstore.repo import BlamedLine, LineOutOfRange
from git_teddy.gitstore.runner import GitFailed
from git_teddy.gitstore.snapshot import HEAD_TRAILER, taken_on
from git_teddy.printable import quote_path
from git_teddy.session.workspace import Workspace


@dataclass(frozen=True)
class BlameLine:
    number: int
    text: str
    commit: str
    origin: str  # "<session>/<turn>", "commit <summary>" or "not committed"
    boundary: bool = False  # git's `^` mark: a root commit, or a shallow clone's edge


TOP_MAGIC = (":/", ":(top)")  # git's pathspec magic for "from the top of the working tree"


def _turn_snapshots(ws: Workspace) -> dict[str, tuple[str, int]]:
    """snapshot id -> ("<session>/<turn>", commit time) for every executed turn that changed
    something: a result that is its own commit on top of the turn's base."""
    found: dict[str, tuple[str, int]] = {}
    for session in ws.store.session_ids():
        for commit in ws.store.turn_commits(session):
            if commit.phase == "report" and commit.snapshot:
                report = ws.repo.read_commit(commit.commit)
                if commit.snapshot != _base_of(ws, report.tree, commit.turn):
                    found[commit.snapshot] = (f"{session}/{commit.turn}", report.timestamp)
    return found


def _newest(snapshots: list[str], turns: dict[str, tuple[str, int]]) -> str:
    """The newest of `snapshots`: by commit time, and within one second (commit dates have no
    finer grain) by the order of the turns, which `_turn_snapshots` lists oldest first."""
    order = {snapshot: position for position, snapshot in enumerate(turns)}
    return max(snapshots, key=lambda s: (turns[s][1], order[s]))


def _base_of(ws: Workspace, tree: str, turn: str) -> str | None:
    """The snapshot a turn started from, as its turn.yaml in a session tree records it."""
    record = ws.repo.read_file(tree, f"{turn}/{TURN_RECORD}")
    return base_snapshot(record)


def top_relative(ws: Workspace, path: str) -> str:
    """A path the user typed, as a path from the top of the working tree: git reads it
    relative to the current directory, unless `:/` (or `:(top)`) says from the top."""
    for magic in TOP_MAGIC:
        if path.startswith(magic):
            rel = path.removeprefix(magic)
            break
    else:
        relative = path.strip() and not posixpath.isabs(path)  # else confine() refuses it
        rel = ws.repo.show_prefix() + path if relative else path
    return posixpath.normpath(rel) if rel.strip() else rel


def _origin(ws: Workspace, row: BlamedLine, turns: dict[str, tuple[str, int]], mine: str) -> str:
    commit, summary = row.commit, row.summary
    # git blames a line not committed yet on the all-zero id (40 or 64 zeros)
    if (is_null_id(commit) or commit == mine) and commit not in turns:
        return "not committed (your edit)"
    if commit in turns:
        return turns[commit][0]
    trailers = parse_trailers(ws.repo.read_commit(commit).message)
    if "Teddy-Session" in trailers and "Teddy-Turn" in trailers:
        return f"{trailers['Teddy-Session']}/{trailers['Teddy-Turn']}"
    head = trailers.get(HEAD_TRAILER)
    if summary.startswith("teddy: ") and head and not ws.repo.object_exists(head):
        # a teammate's session taken on a commit never shared: its history is not here
        return f"{summary.removeprefix('teddy: ')} (on commit {head[:12]}, not here)"
    if summary.startswith("teddy: "):
        return f"your edit, kept by {summary.removeprefix('teddy: ')}"
    return f"commit: {summary}"


def _heads_of_bases(ws: Workspace, commit: str) -> dict[str, str]:
    """base snapshot -> the HEAD it was taken on, for each base snapshot `commit` descends
    from whose HEAD is here: the project's history its lines came from."""
    heads = {}
    for root in ws.repo.root_commits(commit):
        head = taken_on(ws.repo.read_commit(root))
        if head and ws.repo.object_exists(head):
            heads[root] = head
    return heads


def blame_lines(ws: Workspace, path: str, line: int | None) -> list[BlameLine]:
    quotes = ws.repo.quotes_paths()  # names in messages as git shows them (core.quotePath)
    try:
        file = confine(ws.repo.toplevel, top_relative(ws, path))
    except PathRefused as refused:
        raise TeddyError(str(refused), "give a path inside the repository") from None
    if not file.is_file():
        from_top = not path.startswith(TOP_MAGIC) and (ws.repo.toplevel / path).is_file()
        hint = (
            "paths are relative to the current directory, as in git; from the top: "
            f"`:/{quote_path(path, quotes)}`"
            if from_top
            else "check the path"
        )
        raise TeddyError(f"{quote_path(path, quotes)} is not a file in the working tree", hint)
    rel = file.relative_to(ws.repo.toplevel).as_posix()
    turns = _turn_snapshots(ws)
    holding = [s for s in turns if ws.repo.read_blob(ws.repo.read_commit(s).tree, rel)]
    rev = _newest(holding, turns) if holding else (ws.repo.head_commit() or "")
    if not rev:
        raise TeddyError(
            f"{quote_path(rel, quotes)} has no history yet", "commit it, or let a turn create it"
        )
    # The working tree as a commit on top of that snapshot: lines it alone brings are the
    # user's own, not yet in any turn or commit. (git 2.39 can't blame --contents at a rev.)
    mine = snapshot_worktree(ws.repo, "teddy: blame of the working tree", rev)
    # Nothing of the user's on top when the working tree is `rev`: its lines are not theirs.
    yours = "" if mine == rev else mine  # "": no commit of theirs to match
    try:
        blamed = ws.repo.blame(mine, rel, line, _heads_of_bases(ws, mine))
    except LineOutOfRange:
        hint = "give a line number inside the file"
        raise TeddyError(f"{quote_path(rel, quotes)} has no line {line}", hint) from None
    except GitFailed as failed:
        raise TeddyError(failed.message, "check the file name") from None
    return [
        BlameLine(r.number, r.text, r.commit, _origin(ws, r, turns, yours), r.boundary)
        for r in blamed
    ]
