"""Snapshots of the user's working tree as commits, without touching their index or files.

The tree comes from gitstore.worktree_tree (one `git status` on teddy's copy of the index,
or a temporary index seeded from the real one), shared with the cached answer of `git teddy
context`.
"""

from git_teddy.gitstore.repo import GitRepo
from git_teddy.gitstore.worktree_tree import worktree_tree


def snapshot_worktree(repo: GitRepo, message: str, parent: str | None = None) -> str:
    """The commit holding the working tree's state, on top of `parent` (default: HEAD; a root
    commit on an unborn branch). When nothing differs from the parent, the parent itself."""
    parent = parent or repo.head_commit()
    layout = repo.layout
    scratch = layout.shared.make_folders(layout.scratch)
    status_home = layout.shared.make_folders(layout.status_indexes)
    globs, top = repo.secret_globs(), repo.toplevel
    tree = worktree_tree(repo.cwd, repo.index_file, scratch, status_home, globs, top)
    if parent and repo.read_commit(parent).tree == tree:
        return parent
    return repo.write_commit(tree, [parent] if parent else [], message)
