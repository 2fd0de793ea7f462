"""Saved states of the paths a command is about to write, and of those alone (issue 31
item 2): the user's versions of them put on top of another snapshot, read without scanning
the rest of the working tree (gitstore.worktree_tree `paths_entries`), so `execute` pays for
the files its turn changes, and the turn's one full scan stays the one of `plan`.

Such a state holds the paths as a snapshot would (tracked, staged, untracked alike; ignored
and secret-looking files left out, so applying still refuses to replace them), and each
folder of theirs the working tree has as a file or symlink (writing the path replaces it).
Its commit lists the paths in its message (`Teddy-Saved-Paths`: how many), so restoring it
puts back those paths alone and leaves the user's other files as they are
(session/restore.py), as `undo` does (session/undo.py). A state without the trailer is a
whole working tree, as every saved state was before.
"""

import json
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from git_teddy.artifacts.paths import entry_problem
from git_teddy.artifacts.trailers import format_message, parse_trailers
from git_teddy.gitstore.repo import GitRepo
from git_teddy.gitstore.snapshot import HEAD_TRAILER, snapshot_worktree
from git_teddy.gitstore.worktree_tree import paths_entries

SAVED_PATHS_TRAILER = "Teddy-Saved-Paths"
LISTED = "Saved: these paths alone (JSON strings), the rest of the working tree untouched"
# Past this many paths one scan of the whole working tree costs less than naming each
# path to git (and the command line stays within the system's limits).
MOST_PATHS = 2000


def with_folders_in_the_way(top: Path, paths: Iterable[str]) -> list[str]:
    """`paths` and each folder of theirs that the working tree at `top` has as a file or a
    symlink, sorted."""
    covered = set(paths)
    looked: set[PurePosixPath] = set()
    for rel in list(covered):
        for folder in reversed(PurePosixPath(rel).parents[:-1]):  # from the top down
            if folder in looked:
                continue
            looked.add(folder)
            spot = top / folder
            if spot.is_symlink() or (spot.exists() and not spot.is_dir()):
                covered.add(folder.as_posix())
                break
            if not spot.exists():
                break
    return sorted(covered)


def saved_paths(message: str) -> list[str] | None:
    """The paths a saved state holds when it holds only some (its message lists them);
    None for a state of the whole working tree. A listed path git would refuse (from a
    damaged or hostile session) is left out."""
    if SAVED_PATHS_TRAILER not in parse_trailers(message):
        return None
    for paragraph in message.strip().split("\n\n")[1:-1]:
        head, *lines = paragraph.splitlines()
        if head != LISTED:
            continue
        paths = []
        for line in lines:
            try:
                path = json.loads(line)
            except ValueError:
                continue
            if isinstance(path, str) and path and entry_problem(path) is None:
                paths.append(path)
        return paths
    return []


def snapshot_paths(
    repo: GitRepo, message: str, parent: str, paths: Iterable[str], always: bool = False
) -> str:
    """The commit holding `parent`'s tree with `paths` (and the folders in their way) as
    the working tree has them now, on top of `parent`, HEAD in its `Teddy-Head` trailer.
    When nothing differs from `parent`, `parent` itself, unless `always`. Past MOST_PATHS
    paths, a snapshot of the whole working tree."""
    covered = with_folders_in_the_way(repo.toplevel, paths)
    if len(covered) > MOST_PATHS:
        return snapshot_worktree(repo, message, parent, always)
    layout = repo.layout
    scratch = layout.shared.make_folders(layout.scratch)
    before = repo.read_commit(parent).tree
    globs = repo.secret_globs()
    tree = before
    if covered:
        entries = paths_entries(repo.toplevel, repo.index_file, scratch, covered, globs)
        tree = repo.tree_replacing(before, covered, entries)
    if tree == before and not always:
        return parent
    head = repo.head_commit() or ""
    listed = "\n".join([LISTED, *(json.dumps(path) for path in covered)])
    trailers = {HEAD_TRAILER: head, SAVED_PATHS_TRAILER: str(len(covered))}
    return repo.write_commit(tree, [parent], format_message(message, trailers, listed))
