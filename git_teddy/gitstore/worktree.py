"""Throwaway worktrees where plans run, pooled under the derived-state folder.

Creating a worktree checks out every file; on a big repository that dominates a turn. So
worktrees are kept and reused: moving one to another snapshot with `git reset --hard` only
rewrites the files that differ. A lock file with the owner's pid keeps two runs apart; a
lock whose process is gone is stale, and the next run takes the worktree over.
"""

import contextlib
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from git_teddy.errors import TeddyError
from git_teddy.gitstore import runner
from git_teddy.gitstore.repo import GitRepo

POOL_SIZE = 8


@dataclass
class Worktree:
    path: Path
    lock: Path
    linked: list[str] = field(default_factory=list)  # ignored paths linked from the checkout
    recovered_stale: bool = False  # an interrupted run had left this worktree behind

    def record_child(self, pgid: int | None) -> None:
        """Note the process group of a running command, so that if this process is killed
        the next run can stop what it left running."""
        self.lock.write_text(f"{os.getpid()} {pgid or ''}".strip())

    def _git(self, args: list[str], env: dict[str, str] | None = None) -> str:
        # Isolated: the worktree's own repository, whatever GIT_DIR the user's shell has.
        return runner.output(args, self.path, env, isolated=True)

    def stage_all(self) -> str:
        """Stage every file of the worktree except the links to ignored paths; the tree id."""
        excluded = [f":(exclude,top){path}" for path in self.linked]
        self._git(["add", "--all", "--", ":/", *excluded])
        return self._git(["write-tree"]).strip()

    def commit_staged(self, message: str, hooks: Path, env: dict[str, str]) -> str:
        """Commit what is staged, unsigned, with the hooks of folder `hooks` (the pre-commit
        and commit-msg hooks skipped); the new commit's id."""
        config = ["-c", f"core.hooksPath={hooks}", "-c", "commit.gpgsign=false"]
        self._git([*config, "commit", "--quiet", "--no-verify", "-m", message], env)
        return self._git(["rev-parse", "HEAD"]).strip()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _take_lock(lock: Path) -> bool | None:
    """True: locked fresh; False: took over a stale lock; None: held by a live process."""
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        try:
            owner, *child = (int(n) for n in lock.read_text().split())
        except (OSError, ValueError):
            owner, child = 0, []
        if owner and _pid_alive(owner):
            return None
        for pgid in child:  # a command the dead run had started may still be running
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
        lock.write_text(str(os.getpid()))
        return False
    with os.fdopen(fd, "w") as handle:
        handle.write(str(os.getpid()))
    return True


def _link_ignored_paths(repo: GitRepo, tree: Path, links: list[str]) -> list[str]:
    linked = []
    for rel in links:
        source, target = repo.toplevel / rel, tree / rel
        if not source.exists() or target.exists() or target.is_symlink():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(source, target_is_directory=source.is_dir())
        linked.append(rel.strip("/"))
    return linked


def _add(repo: GitRepo, path: Path, commit: str) -> None:
    """A new linked worktree at `path`, detached at `commit` (stale registrations pruned)."""
    runner.output(["worktree", "prune"], repo.cwd)
    runner.output(
        ["worktree", "add", "--force", "--detach", "--quiet", str(path), commit], repo.cwd
    )


def _reset(path: Path, commit: str) -> None:
    """Move a pooled worktree to `commit`: only files that differ are rewritten."""
    runner.output(["reset", "--quiet", "--hard", commit], path, isolated=True)
    # -x also removes ignored leftovers of the previous run (build output, caches).
    runner.output(["clean", "-ffdxq"], path, isolated=True)


def _prepare(repo: GitRepo, path: Path, commit: str) -> None:
    if (path / ".git").is_file():
        _reset(path, commit)
    else:
        _add(repo, path, commit)


@contextmanager
def scratch_worktree(repo: GitRepo, commit: str, links: list[str]) -> Iterator[Worktree]:
    """A worktree at `commit` for this process only; it stays in the pool afterwards."""
    for slot in range(POOL_SIZE):
        path, lock = repo.layout.worktree(slot)
        lock.parent.mkdir(parents=True, exist_ok=True)
        state = _take_lock(lock)
        if state is None:
            continue
        try:
            _prepare(repo, path, commit)
            worktree = Worktree(path, lock, recovered_stale=state is False)
            worktree.linked = _link_ignored_paths(repo, path, links)
            yield worktree
        finally:
            lock.unlink(missing_ok=True)
        return
    raise TeddyError(
        f"all {POOL_SIZE} scratch worktrees are busy with other git teddy runs",
        "wait for them to finish, or see `git worktree list`",
    )
