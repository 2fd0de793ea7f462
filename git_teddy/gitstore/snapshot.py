"""Snapshots of the user's working tree as commits, without touching their index or files.

The tree comes from git_teddy.worktree_tree (a temporary index seeded from the real one,
then `git add -A`), shared with the cached answer of `git teddy context`.
"""

from collections.abc import Mapping
from pathlib import Path

from git_teddy.gitstore.repo import GitRepo
from git_teddy.gitstore.worktree_tree import INDEX_PATH_ARGS, worktree_tree


def _write_worktree_tree(repo: GitRepo) -> str:
    def git(args: list[str], env: Mapping[str, str]) -> str:
        return repo.git(*args, extra_env=env)

    index = Path(git(INDEX_PATH_ARGS, {}).strip())
    return worktree_tree(git, index, repo.derived_dir() / "tmp")


def snapshot_worktree(repo: GitRepo, message: str, parent: str | None = None) -> str:
    """The commit holding the working tree's state, on top of `parent` (default: HEAD; a root
    commit on an unborn branch). When nothing differs from the parent, the parent itself."""
    parent = parent or repo.head_commit()
    tree = _write_worktree_tree(repo)
    if parent and repo.read_commit(parent).tree == tree:
        return parent
    return repo.write_commit(tree, [parent] if parent else [], message)
