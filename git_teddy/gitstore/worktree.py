"""Throwaway worktrees where plans run, pooled under the derived-state folder.

Creating a worktree checks out every file; on a big repository that dominates a turn. So
worktrees are kept and reused: moving one to another snapshot with `git reset --hard` only
rewrites the files that differ. A lock file with the owner's pid keeps two runs apart; a
lock whose process is gone is stale, and the next run takes the worktree over.

The worktrees are teddy's, and the user's repository is not: each is locked in git with a
reason (so the user's `git worktree prune` keeps it and `git worktree list` names it), none
of teddy's git calls in them runs the user's hooks, none inherits the user's sparse
patterns, and teddy never prunes: registrations of the user's own worktrees stay, even
while their folders are away.
"""

import contextlib
import os
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from git_teddy.errors import TeddyError
from git_teddy.gitstore import runner, submodules
from git_teddy.gitstore.repo import GitRepo
from git_teddy.gitstore.worktree_tree import add_all

POOL_SIZE = 8
LOCK_REASON = "git-teddy scratch worktree: plans run here; git teddy resets and reuses it"


def _hookless(no_hooks: Path) -> list[str]:
    """Config that runs none of the user's hooks: a post-checkout hook (LFS and the like)
    must neither break a scratch worktree nor see it. `no_hooks` holds none; a hook-based
    filesystem monitor (core.fsmonitor) is the user's hook too. Submodules are teddy's to
    populate (gitstore.submodules): a user's submodule.recurse never makes git do it."""
    return [
        *runner.hookless(no_hooks),
        *("-c", "core.fsmonitor=false"),
        *("-c", "submodule.recurse=false"),
    ]


@dataclass
class Worktree:
    path: Path
    lock: Path
    no_hooks: Path  # an empty hooks folder: the user's hooks never run here
    linked: list[str] = field(default_factory=list)  # ignored paths linked from the checkout
    recovered_stale: bool = False  # an interrupted run had left this worktree behind
    gitlinks: dict[str, str] = field(default_factory=dict)  # submodule path -> its commit
    notes: list[str] = field(default_factory=list)  # submodules that could not be populated

    def record_child(self, pgid: int | None) -> None:
        """Note the process group of a running command, so that if this process is killed
        the next run can stop what it left running."""
        self.lock.write_text(f"{os.getpid()} {pgid or ''}".strip())

    def _git(
        self, args: list[str], env: dict[str, str] | None = None, hooks: Path | None = None
    ) -> str:
        # Isolated: the worktree's own repository, whatever GIT_DIR the user's shell has.
        config = _hookless(hooks or self.no_hooks)
        return runner.output([*config, *args], self.path, env, isolated=True)

    def stage_all(self) -> str:
        """Stage every file of the worktree except the links to ignored paths and the
        submodules, which keep the commits the base recorded; the tree id."""
        excluded = [f":(exclude,top){path}" for path in [*self.linked, *self.gitlinks]]
        add_all(self.path, config=_hookless(self.no_hooks), excluded=excluded, isolated=True)
        return self._git(["write-tree"]).strip()

    def changed_submodules(self) -> list[str]:
        """The submodules whose files the run changed: changes a snapshot cannot hold."""
        return submodules.changed(self.path, self.gitlinks, _hookless(self.no_hooks))

    def commit_staged(self, message: str, hooks: Path, env: dict[str, str]) -> str:
        """Commit what is staged, unsigned, with the hooks of folder `hooks` (the pre-commit
        and commit-msg hooks skipped); the new commit's id."""
        config = ["-c", "commit.gpgsign=false"]
        self._git([*config, "commit", "--quiet", "--no-verify", "-m", message], env, hooks)
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


def _own_git_dir(path: Path) -> Path | None:
    """The administrative folder of the pooled worktree at `path` when it is one teddy made
    (locked) and git still knows; None when it is missing, broken or made unlocked by an
    older git-teddy."""
    try:
        pointer = (path / ".git").read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    if not pointer.startswith("gitdir: "):
        return None
    git_dir = path / pointer.removeprefix("gitdir: ").strip()  # relative or absolute
    return git_dir if (git_dir / "locked").is_file() else None


def _make_full(path: Path, git_dir: Path) -> None:
    """No sparse checkout in the scratch worktree: with extensions.worktreeConfig, `worktree
    add` copies the current worktree's config (core.sparseCheckout too), and a CREATE
    outside the user's cone could then not be staged. Only this worktree's files change."""
    (git_dir / "info" / "sparse-checkout").unlink(missing_ok=True)
    config = git_dir / "config.worktree"
    if config.is_file():
        runner.output(
            ["config", "--file", str(config), "core.sparseCheckout", "false"], path, isolated=True
        )


def _add(repo: GitRepo, path: Path, commit: str) -> None:
    """A new linked worktree at `path`, detached at `commit` and locked. Whatever was at
    `path` is teddy's own and remade; git drops a registration left for `path` (its folder
    gone) itself when `--force` is given twice, so nothing is pruned."""
    if path.is_symlink():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)  # links to the user's ignored paths are unlinked, not followed
    no_hooks = repo.layout.no_hooks
    # core.sparseCheckout=false: the user's sparse patterns are not copied into it.
    config = [*_hookless(no_hooks), "-c", "core.sparseCheckout=false"]
    add = ["worktree", "add", "--force", "--force", "--detach", "--no-checkout", "--quiet"]
    lock = ["--lock", "--reason", LOCK_REASON]
    runner.output([*config, *add, *lock, str(path), commit], repo.cwd)
    git_dir = _own_git_dir(path)
    if git_dir is None:  # git made it, so this cannot happen unless git changes its layout
        raise TeddyError(
            f"git made the scratch worktree {path} in a way git-teddy does not know",
            "report this with your `git --version`",
        )
    _make_full(path, git_dir)
    _reset(path, commit, no_hooks)


def _reset(path: Path, commit: str, no_hooks: Path) -> None:
    """Move a pooled worktree to `commit`: only files that differ are rewritten."""
    runner.output([*_hookless(no_hooks), "reset", "--quiet", "--hard", commit], path, isolated=True)
    # -x also removes ignored leftovers of the previous run (build output, caches).
    runner.output([*_hookless(no_hooks), "clean", "-ffdxq"], path, isolated=True)


def _prepare(repo: GitRepo, path: Path, commit: str) -> None:
    if _own_git_dir(path) is None:
        _add(repo, path, commit)
    else:
        _reset(path, commit, repo.layout.no_hooks)


def _populate(repo: GitRepo, worktree: Worktree, commit: str) -> None:
    """The submodules of `commit`, from the user's own repositories of them."""
    worktree.gitlinks = submodules.gitlinks(worktree.path, commit)
    if worktree.gitlinks:
        config = _hookless(repo.layout.no_hooks)
        worktree.notes = submodules.populate(
            worktree.path, repo.toplevel, worktree.gitlinks, config
        )


@contextmanager
def scratch_worktree(repo: GitRepo, commit: str, links: list[str]) -> Iterator[Worktree]:
    """A worktree at `commit` for this process only; it stays in the pool afterwards."""
    for slot in range(POOL_SIZE):
        path, lock = repo.layout.worktree(slot)
        repo.layout.shared.make_folders(lock.parent)  # the pool, shared as git would share it
        state = _take_lock(lock)
        if state is None:
            continue
        try:
            _prepare(repo, path, commit)
            worktree = Worktree(path, lock, repo.layout.no_hooks, recovered_stale=state is False)
            _populate(repo, worktree, commit)
            worktree.linked = _link_ignored_paths(repo, path, links)
            yield worktree
        finally:
            lock.unlink(missing_ok=True)
        return
    raise TeddyError(
        f"all {POOL_SIZE} scratch worktrees are busy with other git teddy runs",
        "wait for them to finish, or see `git worktree list`",
    )
