"""The tree id of the user's working tree, with git alone: their index and files untouched.

A temporary index is seeded from the real one (a copy that keeps its mtime, so git's racy
checks stay exact), then `git add -A` on it re-hashes only what changed. The cost follows the
number of changed files, like `git status`, not the size of the repository.

The cached answer of `git teddy context` is checked with this before anything heavy is
imported (gitstore's package loads dulwich only on first use); gitstore's snapshot uses the
same function, so both compute the same tree.
"""

import os
from pathlib import Path

from git_teddy.gitstore import runner


def _copy_keeping_mtime(source: Path, target: Path) -> None:
    """Copy bytes and mtime (what git's racy-clean checks read), nothing else."""
    stat = source.stat()
    target.write_bytes(source.read_bytes())
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def worktree_tree(cwd: Path, index: Path, scratch: Path) -> str:
    """Write the working tree's state as a tree object and return its id. `index` is the
    real index (Location.index_file); `scratch` holds the temporary one."""
    scratch.mkdir(parents=True, exist_ok=True)
    temp_index = scratch / f"index-{os.getpid()}"
    try:
        if index.exists():
            _copy_keeping_mtime(index, temp_index)
        env = {"GIT_INDEX_FILE": str(temp_index), "GIT_OPTIONAL_LOCKS": "0"}
        # --sparse: in a sparse checkout a file outside the cone (one a turn applied) is
        # part of the working tree too; entries git keeps out of it (skip-worktree) stay.
        # No hooks: the user's post-index-change hook is not for teddy's temporary index.
        no_hooks = ["-c", f"core.hooksPath={scratch / 'no-hooks'}"]
        runner.output([*no_hooks, "add", "--sparse", "--all", "--", ":/"], cwd, env)
        return runner.output([*no_hooks, "write-tree"], cwd, env).strip()
    finally:
        temp_index.unlink(missing_ok=True)
        Path(f"{temp_index}.lock").unlink(missing_ok=True)
