"""Snapshots of the user's working tree as commits, without touching their index or files.

The tree comes from gitstore.worktree_tree (one `git status` on teddy's copy of the index,
or a temporary index seeded from the real one), shared with the cached answer of `git teddy
context`.

A snapshot's parents are snapshots only (a session's base snapshot has none): the HEAD it
was taken on is recorded in its `Teddy-Head` trailer, never as a parent, so pushing a
session never carries the user's unpublished commits, only the file contents its snapshots
hold. Sessions written before (a base snapshot with HEAD as its parent, or HEAD itself for
a clean working tree) read the same: nothing needs a snapshot's parent to find HEAD.
"""

from git_teddy.artifacts.trailers import format_message, parse_trailers
from git_teddy.gitstore.repo import CommitInfo, GitRepo
from git_teddy.gitstore.worktree_tree import worktree_tree

HEAD_TRAILER = "Teddy-Head"
BASE_TRAILER = "Teddy-Snapshot"  # on a session's root commit: the base snapshot


def snapshot_worktree(
    repo: GitRepo, message: str, parent: str | None = None, always: bool = False
) -> str:
    """The commit holding the working tree's state, on top of `parent` (a snapshot; None: a
    base snapshot, a commit without parents), with the HEAD it was taken on in its
    `Teddy-Head` trailer (none on an unborn branch). When nothing differs from `parent`,
    `parent` itself, unless `always` (a saved state the user is told of: its own commit)."""
    head = repo.head_commit()
    layout = repo.layout
    scratch = layout.shared.make_folders(layout.scratch)
    status_home = layout.shared.make_folders(layout.status_indexes)
    globs, top = repo.secret_globs(), repo.toplevel
    tree = worktree_tree(repo.cwd, repo.index_file, scratch, status_home, globs, top)
    # read first even when `always`: a parent not in this repository (a session fetched
    # without its snapshots) is refused before a commit names it
    if parent and repo.read_commit(parent).tree == tree and not always:
        return parent
    text = format_message(message, {HEAD_TRAILER: head}) if head else message
    return repo.write_commit(tree, [parent] if parent else [], text)


def taken_on(snapshot: CommitInfo) -> str | None:
    """The HEAD a snapshot was taken on, as its `Teddy-Head` trailer records it (None for a
    snapshot of an unborn branch, a turn's result, or one written in the old shape)."""
    return parse_trailers(snapshot.message).get(HEAD_TRAILER)


def session_root(repo: GitRepo, tip: str) -> CommitInfo:
    """The root of a session branch: the first commit of `tip`'s first-parent history, the
    one that names the session's base snapshot (see base_of_session)."""
    *_, root = repo.first_parent_history(tip)
    return root


def base_of_session(root: CommitInfo) -> str | None:
    """The snapshot a session started from, as its root commit's `Teddy-Snapshot` trailer
    names it (None: it names none). `show`, `list` and `restore base` read it here."""
    return parse_trailers(root.message).get(BASE_TRAILER)
