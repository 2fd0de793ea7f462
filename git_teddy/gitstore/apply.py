"""Bring a turn's result into the user's working tree as uncommitted changes.

HEAD, the branch and the index are never touched: only files change. The caller first
snapshots the user's current state, so whatever happens here can be undone with `restore`.
When the user edited files since the turn's base, the result is merged three-way with
`git merge-tree`; on a conflict no file is changed.
"""

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from git_teddy.gitstore import runner
from git_teddy.gitstore.repo import GitRepo

SYMLINK_MODE = "120000"
EXEC_MODE = "100755"


@dataclass(frozen=True)
class ApplyResult:
    applied: bool
    changed_paths: list[str]
    conflicts: list[str]
    merged: bool  # the user had changed files too: the result is a three-way merge


def _tree(repo: GitRepo, commit: str) -> str:
    return repo.read_commit(commit).tree


def _merge(repo: GitRepo, base: str, ours: str, theirs: str) -> tuple[str | None, list[str]]:
    """The merged tree, or None and the conflicting paths. Both sides are commits made on
    top of `base`, so git finds it as their merge base (git 2.39 has no --merge-base)."""
    assert base in repo.read_commit(ours).parents and base in repo.read_commit(theirs).parents
    args = ["merge-tree", "--write-tree", "--name-only", "--no-messages"]
    out = runner.run([*args, ours, theirs], repo.cwd).stdout
    lines = out.splitlines()
    if lines and len(lines) == 1:
        return lines[0], []
    return None, sorted(set(lines[1:])) if lines else ["(merge failed)"]


def _changes(repo: GitRepo, old_tree: str, new_tree: str) -> list[tuple[str, str, str, str]]:
    """(status, path, new mode, new blob) for every file that differs."""
    out = runner.output(["diff-tree", "-r", "-z", "--no-renames", old_tree, new_tree], repo.cwd)
    fields = out.split("\0")
    changes = []
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta:
            continue
        _old_mode, new_mode, _old_blob, new_blob, status = meta.lstrip(":").split(" ")
        changes.append((status, path, new_mode, new_blob))
    return changes


def _write(repo: GitRepo, path: Path, mode: str, blob: str) -> None:
    data = repo.dulwich[blob.encode()].as_raw_string()
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode == SYMLINK_MODE:
        os.symlink(data.decode(), path)
        return
    path.write_bytes(data)
    if mode == EXEC_MODE:
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _remove(path: Path, top: Path) -> None:
    path.unlink(missing_ok=True)
    parent = path.parent
    while parent != top and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()  # folders left empty by the deletion go too, as git would do
        parent = parent.parent


def apply_to_worktree(repo: GitRepo, base: str, result: str, user_state: str) -> ApplyResult:
    """Move the user's files from `user_state` to `result`, merging when the user's state
    is not `base` (the snapshot the turn started from)."""
    target: str | None = _tree(repo, result)
    merged = _tree(repo, user_state) != _tree(repo, base)
    if merged:
        target, conflicts = _merge(repo, base, user_state, result)
        if target is None:
            return ApplyResult(False, [], conflicts, merged=True)
    assert target is not None
    changes = _changes(repo, _tree(repo, user_state), target)
    for status, rel, mode, blob in changes:
        path = repo.toplevel / rel
        if status == "D":
            _remove(path, repo.toplevel)
        else:
            _write(repo, path, mode, blob)
    return ApplyResult(True, [rel for _, rel, _, _ in changes], [], merged)
