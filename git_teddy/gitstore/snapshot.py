"""Snapshots of the user's working tree as commits, without touching their index or files.

A temporary index is seeded from the real one (a copy that keeps its mtime, so git's racy
checks stay exact), then `git add -A` on it re-hashes only what changed. The cost follows the
number of changed files, like `git status`, not the size of the repository.
"""

import os
import shutil
from pathlib import Path

from git_teddy.gitstore.repo import GitRepo


def _index_path(repo: GitRepo) -> Path:
    return Path(repo.git("rev-parse", "--path-format=absolute", "--git-path", "index").strip())


def _write_worktree_tree(repo: GitRepo) -> str:
    scratch = repo.derived_dir() / "tmp"
    scratch.mkdir(exist_ok=True)
    temp_index = scratch / f"index-{os.getpid()}"
    real_index = _index_path(repo)
    try:
        if real_index.exists():
            shutil.copy2(real_index, temp_index)
        env = {"GIT_INDEX_FILE": str(temp_index), "GIT_OPTIONAL_LOCKS": "0"}
        repo.git("add", "--all", "--", ":/", extra_env=env)
        return repo.git("write-tree", extra_env=env).strip()
    finally:
        temp_index.unlink(missing_ok=True)
        Path(f"{temp_index}.lock").unlink(missing_ok=True)


def snapshot_worktree(repo: GitRepo, message: str, parent: str | None = None) -> str:
    """The commit holding the working tree's state, on top of `parent` (default: HEAD; a root
    commit on an unborn branch). When nothing differs from the parent, the parent itself."""
    parent = parent or repo.head_commit()
    tree = _write_worktree_tree(repo)
    if parent and repo.read_commit(parent).tree == tree:
        return parent
    return repo.write_commit(tree, [parent] if parent else [], message)
