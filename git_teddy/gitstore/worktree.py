"""Throwaway worktrees where plans run, pooled under the derived-state folder.

Creating a worktree checks out every file; on a big repository that dominates a turn. So
worktrees are kept and reused. A run that staged its result records the commit its files,
index and HEAD then hold (`settle`); the next run moves the worktree from that commit to its
base with `git read-tree -m -u`, which reads the two trees and touches only the paths that
differ (issue 31: no refresh of every file). Without that record (the first run of an older
git-teddy, a killed run) `git reset --hard` checks every file and rewrites those that differ.

What a run changed is read back by what it may have written (issue 31 item 3): teddy stages
into an index of its own (`teddy-index` in the worktree's git folder, kept stat-valid from
turn to turn), never the worktree's own, which stays at the base as the plan's commands
expect to find it. An EDIT or CREATE names its file: that file alone is hashed and put into
the last state's tree (gitstore.tree_paths); an action that writes nothing costs nothing;
only a command (or what cannot be known so: a symlink on the way, `.gitattributes`) takes a
scan of the whole worktree, `git add --all` on that index. The result is committed from the
tree with `git commit-tree` and the post-commit hook run by `git hook run`: no refresh of
every file either.
A lock file with the owner's pid and start time keeps two runs apart; a lock whose process
is gone (or whose pid another program now has) is stale, and the next run takes the worktree
over, stopping a command the killed run left running only when that process group is
verified to be the one it started.

The worktrees live outside the user's project, in a per-user cache folder (gitstore.pool):
inside it they were a second copy of the project that every tool searching the folder found.
Each is teddy's, and the user's repository is not: each is locked in git with a reason (so the
user's `git worktree prune` keeps it and `git worktree list` names it), none of teddy's git
calls in them runs the user's hooks, none inherits the user's sparse patterns, and teddy
never prunes: registrations of the user's own worktrees stay, even while their folders are
away. A moved repository finds its worktrees in the pool of its old place and relinks them
(gitstore.pool `adopt`).
"""

import contextlib
import json
import os
import shutil
import signal
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from git_teddy.errors import TeddyError, in_the_way
from git_teddy.gitstore import locks, pool, runner, submodules, tree_paths
from git_teddy.gitstore.permissions import Shared
from git_teddy.gitstore.pool import LOCK_REASON
from git_teddy.gitstore.repo import GitRepo
from git_teddy.gitstore.tree_paths import Written, files_tree

POOL_SIZE = 8
LOCK_FIELDS = ("pid", "started", "group", "group_started")
STAGING = "teddy-index"  # teddy's index of a scratch worktree, in its git folder
# The scan of a scratch worktree: what differs from teddy's index, what is untracked (each
# file: every one is staged), what is ignored (a folder as one); submodules left alone.
SCAN = [
    *("status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored=matching"),
    *("--no-renames", "--ignore-submodules=all"),
]
# teddy's index of a scratch worktree (and the worktree's own, its copy) is a split index:
# a write writes the entries changed since the split, not all of them with a checksum over
# the whole (at 100,000 files a whole write costs more than a `git status`; issue 31 item 3).
# Given to teddy's git calls that write it in the worktree alone, never to a call in the
# user's repository or a submodule's; a plan's commands leave the split as they find it.
SPLIT = ("-c", "core.splitIndex=true")


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
    recovery: list[str] = field(default_factory=list)  # what taking over a stale lock left
    repo: GitRepo | None = None  # the user's repository (objects, settings)
    tree: str = ""  # the files' tree as the last `state` found them (the base's at first)
    written: Written = field(default_factory=Written)  # what may have changed since
    unstaged: dict[str, None] = field(default_factory=dict)  # in `tree`, not in teddy's index
    leftovers: dict[str, None] = field(default_factory=dict)  # ignored files written, to remove
    nested: bool = False  # a nested repository was staged: the result has a gitlink more

    def command_environ(self) -> dict[str, str]:
        """What a plan's commands add to their environment: git config, given the way git
        reads it from the environment (GIT_CONFIG_COUNT, after any the user set), under
        which the git commands they run here start none of the user's hooks (nor a
        hook-based filesystem monitor) either."""
        try:
            count = int(os.environ.get("GIT_CONFIG_COUNT") or 0)
        except ValueError:
            count = 0  # git itself refuses such a count: the command will say so
        config = {"core.hooksPath": str(self.no_hooks), "core.fsmonitor": "false"}
        environ = {"GIT_CONFIG_COUNT": str(count + len(config))}
        for number, (key, value) in enumerate(config.items(), start=count):
            environ |= {f"GIT_CONFIG_KEY_{number}": key, f"GIT_CONFIG_VALUE_{number}": value}
        return environ

    def record_child(self, pgid: int | None) -> None:
        """Note the process group of a running command, so that if this process is killed
        the next run can stop what it left running (and only that)."""
        self.lock.write_text(LockRecord.mine(pgid).render())

    def _git(
        self,
        args: list[str],
        env: dict[str, str] | None = None,
        hooks: Path | None = None,
        input: str | None = None,
    ) -> str:
        # Isolated: the worktree's own repository, whatever GIT_DIR the user's shell has.
        config = [*_hookless(hooks or self.no_hooks), *SPLIT]
        return runner.output([*config, *args], self.path, env, isolated=True, input=input)

    def _staging(self) -> dict[str, str]:
        """The environment of git commands on teddy's own index of the worktree."""
        return {"GIT_INDEX_FILE": str(staging_index(self.path))}

    def stage_all(self) -> str:
        """Stage every file of the worktree except the links to ignored paths and the
        submodules, which keep the commits the base recorded, in teddy's index; the tree.
        One scan of the worktree (`git status`: teddy's index is stat-valid, so only what
        changed is read), which also names the ignored files: the next run removes them
        alone instead of cleaning every folder."""
        config, staging = _hookless(self.no_hooks), self._staging()
        listing = runner.output([*config, *SPLIT, *SCAN], self.path, staging, isolated=True)
        scan = tree_paths.parse_scan(listing)
        excluded = self._excluded()
        staged = [path for path in scan.staged() if not tree_paths.under(path, excluded)]
        unborn = [
            path
            for path in staged
            if path.endswith("/") and not tree_paths.has_commit(self.path / path)
        ]
        self.leftovers.update(dict.fromkeys([*scan.ignored, *unborn]))
        listed = [path.rstrip("/") for path in staged if path not in unborn]
        self.nested = self.nested or any(path.endswith("/") for path in staged)
        if listed:
            update = ["update-index", "--add", "--remove", "--replace", "-z", "--stdin"]
            self._git(update, staging, input="".join(f"{path}\0" for path in listed))
        self.unstaged.clear()
        self.tree = self._git(["write-tree"], staging).strip()
        return self.tree

    def wrote(self, paths: list[str] | None) -> None:
        """Note what an action may have written: its paths, or None when anything (a
        command); the next `state` reads back that alone."""
        self.written.add(paths)

    def state(self) -> str:
        """The worktree's files as a tree id (as `stage_all` stages them; a journal's record,
        the result), read back by what was written since the last: nothing, the files an
        action named (hashed into the last tree), or a scan when anything may have changed.
        The worktree's own index is never touched: the plan's next commands see what they
        would have seen."""
        written, self.written = self.written, Written()
        if written.anything or self.repo is None or not self.tree:
            return self.stage_all()
        if not written.paths:
            return self.tree
        found = files_tree(self.repo, self.path, self.tree, written.paths, self._excluded())
        if found is None:  # a symlink on the way, .gitattributes...: as git add would see it
            return self.stage_all()
        self.tree = found.tree
        self.unstaged.update(dict.fromkeys(found.staged))
        self.leftovers.update(dict.fromkeys(found.ignored))
        return self.tree

    def _excluded(self) -> list[str]:
        """Paths the fast way leaves to a scan: the links and the submodules."""
        return [*self.linked, *self.gitlinks]

    def _stage_unstaged(self) -> None:
        """Bring teddy's index to `tree`: the files the fast way hashed, staged again (the
        next run moves the worktree from that index)."""
        if self.unstaged:
            update = ["update-index", "--add", "--remove", "--replace", "-z", "--stdin"]
            listing = "".join(f"{path}\0" for path in self.unstaged)
            self._git(update, self._staging(), input=listing)
            self.unstaged.clear()

    def restore_state(self, tree: str) -> None:
        """Put the files of `tree` (a `state`) in the worktree, unstaged; HEAD stays, so the
        result is still committed on the base (resuming an interrupted run)."""
        self._git(["read-tree", "--reset", "-u", tree], self._staging())
        self.tree, self.written, self.unstaged = tree, Written(), {}

    def changed_submodules(self) -> list[str]:
        """The submodules whose files the run changed: changes a snapshot cannot hold."""
        return submodules.changed(self.path, self.gitlinks, _hookless(self.no_hooks))

    def settle(self, head: str, shared: Shared) -> None:
        """Record that the worktree's files are what is staged and committed at `head` (its
        HEAD): the next run moves it from there by the difference alone. `shared`: the mode
        core.sharedRepository asks for."""
        self._stage_unstaged()
        with contextlib.suppress(OSError):  # unrecorded, the next run resets it whole
            _share_index(self.path)  # a look into the worktree finds it clean at `head`
            record = _settled(self.lock)
            leftovers = [*self.leftovers, *self.linked]
            gitlinks = None if self.nested else self.gitlinks  # the result's, when known
            record.write_text(f"{head}\n{json.dumps(leftovers)}\n{json.dumps(gitlinks)}\n")
            shared.adjust(record)

    def commit_tree(self, tree: str, message: str, hooks: Path, env: dict[str, str]) -> str:
        """Commit `tree` on HEAD as `git commit` would, unsigned, and run the post-commit
        hook of folder `hooks` (no pre-commit or commit-msg hook); the new commit's id. No
        index is read: `git commit` would refresh every file's entry first."""
        parent = self._git(["rev-parse", "HEAD"]).strip()
        config = ["-c", "commit.gpgsign=false"]
        args = [*config, "commit-tree", tree, "-p", parent, "-m", message]
        commit = self._git(args, env).strip()
        self._git(["update-ref", "-m", f"commit: {message}", "HEAD", commit, parent])
        hook = [*_hookless(hooks), "hook", "run", "--ignore-missing", "post-commit"]
        proc = runner.run(hook, self.path, env, isolated=True)
        if proc.returncode == 0:
            return commit
        if "hook" not in proc.stderr or "not a git command" not in proc.stderr:
            raise runner.failure(hook[2:], proc.stderr.strip())
        # A git before 2.36 has no `git hook`: `git commit` of teddy's index (brought to
        # `tree` first), which runs the hook itself.
        self._git(["update-ref", "HEAD", parent, commit])
        self._stage_unstaged()
        committing = [*config, "commit", "--quiet", "--no-verify", "-m", message]
        self._git(committing, {**env, **self._staging()}, hooks)
        return self._git(["rev-parse", "HEAD"]).strip()


@dataclass(frozen=True)
class LockRecord:
    """What a worktree lock says: the owner (pid and start time) and the process group of
    the command it is running, with the group leader's start time. Written as
    `pid=P started=S group=G group_started=T`; older git-teddy wrote `P [G]`."""

    pid: int
    started: int | None = None
    group: int | None = None
    group_started: int | None = None

    @classmethod
    def mine(cls, group: int | None = None) -> "LockRecord":
        started = locks.start_time(group) if group else None
        return cls(os.getpid(), locks.start_time(os.getpid()), group, started)

    def render(self) -> str:
        values = (self.pid, self.started, self.group, self.group_started)
        pairs = zip(LOCK_FIELDS, values, strict=True)
        return " ".join(f"{key}={value}" for key, value in pairs if value is not None)

    @classmethod
    def parse(cls, text: str) -> "LockRecord | None":
        """None for a lock that says nothing usable (empty: killed right after making it)."""
        words = text.split()
        try:
            if words and all("=" in word for word in words):
                pairs = (word.partition("=") for word in words)
                values = {key: int(value) for key, _, value in pairs}
                return cls(values["pid"], *(values.get(key) for key in LOCK_FIELDS[1:]))
            numbers = [int(word) for word in words]  # the older form: pid, then group
        except (KeyError, ValueError):
            return None
        return cls(numbers[0], None, *numbers[1:2]) if numbers else None

    def owner_running(self) -> bool:
        """Whether the run that made the lock is still running: its pid with the recorded
        start time; a lock with no start time (or a system without /proc) goes by the pid."""
        same = locks.same_process(self.pid, self.started)
        return locks.pid_exists(self.pid) if same is None else same


@dataclass(frozen=True)
class Claim:
    """The outcome of trying a worktree's lock."""

    state: bool | None  # True: locked fresh; False: took over a stale lock; None: busy
    holder: LockRecord | None = None  # who holds it (busy)
    notes: tuple[str, ...] = ()  # what taking it over left undone


def _stop_group(group: int, started: int | None) -> str | None:
    """Stop the command a killed run left running in process group `group`, but only when
    the group is verified to be that command's: a pid the system gave to another program is
    never signalled. A note when it was left alone."""
    same = locks.same_process(group, started)
    # With no process of that pid, killpg reaches only the group's remaining members, which
    # are the command's own children: the system keeps a group's number from every new
    # process while the group has members.
    if same or not locks.pid_exists(group):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
        return None
    why = (
        f"process {group} is now another program"
        if same is False
        else "git teddy could not verify that it is that command"
    )
    return (
        f"a command an interrupted run started (process group {group}) was not stopped: "
        f"{why}; if it is yours to stop: kill -- -{group}"
    )


def _take_lock(lock: Path) -> Claim:
    if lock.is_dir():
        raise in_the_way(lock, "a scratch worktree's lock file")
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        try:
            record = LockRecord.parse(lock.read_text("utf-8", "replace"))
        except OSError:
            record = None
        if record and record.owner_running():
            return Claim(None, record)
        note = _stop_group(record.group, record.group_started) if record and record.group else None
        lock.write_text(LockRecord.mine().render())
        return Claim(False, notes=(note,) if note else ())
    with os.fdopen(fd, "w") as handle:
        handle.write(LockRecord.mine().render())
    return Claim(True)


def _all_busy(held: dict[Path, LockRecord]) -> TeddyError:
    """Every worktree of the pool is locked by a running process: which, since when, and
    the way out when those processes are not git teddy runs after all."""
    listed = "; ".join(
        f"{lock.name}: pid {record.pid}, written {locks.describe_age(lock)} ago"
        for lock, record in held.items()
    )
    pids = ",".join(str(record.pid) for record in held.values())
    folder = next(iter(held)).parent
    return TeddyError(
        f"all {POOL_SIZE} scratch worktrees are busy: each lock in {folder} names a running "
        f"process ({listed})",
        f"wait for those git teddy runs to finish (`ps -p {pids}` shows them); if none of "
        f"them is git teddy, a killed run left the locks: remove them to continue: "
        f"rm {folder}/wt-*.lock",
    )


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


def _own_git_dir(repo: GitRepo, path: Path) -> Path | None:
    """The administrative folder of the pooled worktree at `path` when it is one teddy made
    (locked) in this repository, and both links between them hold; None when it is missing,
    broken, another repository's (a copy's) or made unlocked by an older git-teddy."""
    git_dir = pool.pointer(path)
    if git_dir is None or not (git_dir / "locked").is_file():
        return None
    if os.path.realpath(git_dir.parent) != os.path.realpath(repo.common_dir / "worktrees"):
        return None
    return git_dir if pool.points_back(git_dir, path) else None


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
    gone) itself when `--force` is given twice, so nothing is pruned. A new slot is the
    cheap moment to clear the cache of pools whose repository is gone, and git's records of
    teddy's worktrees that are gone with them."""
    _remove_folder(path)
    folder = path.parent
    pool.collect_garbage(folder.parent)
    pool.forget_lost(repo.common_dir, folder.parent, folder)
    no_hooks = repo.layout.no_hooks
    # core.sparseCheckout=false: the user's sparse patterns are not copied into it.
    config = [*_hookless(no_hooks), "-c", "core.sparseCheckout=false"]
    add = ["worktree", "add", "--force", "--force", "--detach", "--no-checkout", "--quiet"]
    lock = ["--lock", "--reason", LOCK_REASON]
    runner.output([*config, *add, *lock, str(path), commit], repo.cwd)
    git_dir = _own_git_dir(repo, path)
    if git_dir is None:  # git made it, so this cannot happen unless git changes its layout
        raise TeddyError(
            f"git made the scratch worktree {path} in a way git-teddy does not know",
            "report this with your `git --version`",
        )
    _make_full(path, git_dir)
    _reset(path, commit, no_hooks, clean=False)


def _remove_folder(path: Path) -> None:
    """Remove teddy's own folder (or a link) at `path`; links inside it to the user's
    ignored paths are unlinked, not followed."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def _remove(repo: GitRepo, path: Path) -> None:
    """Remove the scratch worktree at `path` and git's record of it (`git worktree remove`
    when it is teddy's in this repository, else the folder alone: a copy's or a broken one)."""
    git_dir = _own_git_dir(repo, path)
    if git_dir is not None:
        config = _hookless(repo.layout.no_hooks)
        remove = ["worktree", "remove", "--force", "--force", str(path)]
        try:
            runner.output([*config, *remove], repo.cwd)
            return
        except runner.GitFailed:  # git refuses a worktree with submodules: as git would
            shutil.rmtree(git_dir, ignore_errors=True)
    _remove_folder(path)


def staging_index(path: Path) -> Path:
    """teddy's own index of the worktree at `path` (Worktree.stage_all), in its git folder:
    it goes with the worktree."""
    return (pool.pointer(path) or path / ".git") / STAGING


def _share_index(path: Path) -> None:
    """The worktree's own index made a copy of teddy's (the base's entries, stat-valid): the
    plan's commands find the base staged and every file clean. The mtime goes with it, so
    git's racy-clean checks stay exact."""
    index = _own_index(path)
    temporary = index.with_name(f"index.teddy-{os.getpid()}")
    shutil.copy2(staging_index(path), temporary)
    os.replace(temporary, index)


def _own_index(path: Path) -> Path:
    """The worktree's own index file (beside teddy's, in its git folder)."""
    return staging_index(path).with_name("index")


def _reset(path: Path, commit: str, no_hooks: Path, clean: bool = True) -> None:
    """Move a pooled worktree to `commit`: only files that differ are rewritten. `clean`:
    untracked files may be there (a new worktree has none)."""
    reset = [*_hookless(no_hooks), *SPLIT, "reset", "--quiet", "--hard", commit]
    runner.output(reset, path, isolated=True)
    if clean:
        # -x also removes ignored leftovers of the previous run (build output, caches).
        runner.output([*_hookless(no_hooks), "clean", "-ffdxq"], path, isolated=True)
    shutil.copy2(_own_index(path), staging_index(path))  # teddy's: the fresh one reset wrote


def _settled(lock: Path) -> Path:
    """Where `Worktree.settle` records the commit a worktree's files, index and HEAD hold
    (beside its lock, `wt-N.settled`)."""
    return lock.with_name(lock.name.removesuffix(".lock") + ".settled")


@dataclass(frozen=True)
class Settled:
    """What a run that settled a worktree recorded: the commit its files, teddy's index and
    HEAD hold, and the files besides (ignored ones its actions wrote, the links), None when
    it did not say (an older git-teddy: every folder is cleaned)."""

    head: str
    leftovers: list[str] | None
    gitlinks: dict[str, str] | None = None  # the submodules of `head`, when recorded


def _take_settled(lock: Path) -> Settled | None:
    """What the worktree was left settled at, its record removed (from here on this run
    changes it), None when unrecorded."""
    record = _settled(lock)
    try:
        lines = record.read_text().splitlines()
        record.unlink()
    except OSError:
        return None
    if not lines or not lines[0].strip():
        return None
    try:
        listed = json.loads(lines[1]) if len(lines) > 1 else None
    except ValueError:
        listed = None
    valid = isinstance(listed, list) and all(isinstance(item, str) for item in listed)
    return Settled(lines[0].strip(), listed if valid else None, _gitlinks_line(lines[2:3]))


def _gitlinks_line(lines: list[str]) -> dict[str, str] | None:
    """The recorded gitlinks (path -> commit), None when not recorded or unreadable."""
    try:
        links = json.loads(lines[0]) if lines else None
    except ValueError:
        return None
    if not isinstance(links, dict):
        return None
    pairs = links.items()
    return dict(pairs) if all(isinstance(k, str) and isinstance(v, str) for k, v in pairs) else None


def _moved_gitlinks(path: Path, last: Settled, commit: str) -> dict[str, str] | None:
    """The gitlinks of `commit`, from those recorded for `last` and what differs between
    the two (no listing of the whole tree); None when `last` recorded none."""
    if last.gitlinks is None:
        return None
    links = dict(last.gitlinks)
    if last.head == commit:
        return links
    args = ["diff-tree", "-r", "-z", "--no-renames", last.head, commit]
    fields = runner.output(args, path, isolated=True).split("\0")
    for meta, rel in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.lstrip(":").split(" ")
        if len(parts) < 4:
            continue
        links.pop(rel, None)
        if parts[1] == submodules.GITLINK_MODE:
            links[rel] = parts[3]
    return links


def _remove_leftovers(path: Path, leftovers: list[str]) -> None:
    """Remove what the last run left besides its result (ignored files, a link): no walk
    of the worktree's folders. A link is removed, never followed."""
    for rel in leftovers:
        plain = tree_paths.plain_path(rel.rstrip("/"))
        # Never through a symlink: a later command may have made a folder on the way one.
        kind = None if plain is None else tree_paths.kind_at(str(path), plain)
        if plain is None or not kind:
            continue
        target = path / plain
        if kind == stat.S_IFDIR:
            shutil.rmtree(target, ignore_errors=True)
        else:
            target.unlink(missing_ok=True)


def _move(path: Path, last: Settled, commit: str, no_hooks: Path) -> bool:
    """Move a worktree left settled at `last` to `commit`, rewriting only the paths whose
    blobs differ between the two trees (`read-tree -m -u` on teddy's index: what `git
    checkout` does to switch branches) after removing the last run's leftovers; False,
    nothing changed, when it cannot (its HEAD is no longer `last`, a file in the way): then
    it is reset whole."""
    config, staging = _hookless(no_hooks), {"GIT_INDEX_FILE": str(staging_index(path))}
    if not staging_index(path).is_file():
        return False  # settled by an older git-teddy, which staged in the worktree's index
    try:
        if runner.output(["rev-parse", "HEAD"], path, isolated=True).strip() != last.head:
            return False
        if last.leftovers is not None:
            _remove_leftovers(path, last.leftovers)
        if last.head != commit:
            read = [*config, *SPLIT, "read-tree", "-m", "-u", last.head, commit]
            runner.output(read, path, staging, isolated=True)
            update = [*config, "update-ref", "--no-deref", "HEAD", commit]
            runner.output(update, path, isolated=True)
    except runner.GitFailed:
        return False
    _share_index(path)
    if last.leftovers is None:
        # -x also removes ignored leftovers of the previous run (build output, caches).
        runner.output([*config, "clean", "-ffdxq"], path, isolated=True)
    return True


def _prepare(repo: GitRepo, path: Path, commit: str, lock: Path) -> dict[str, str] | None:
    """The worktree at `path` brought to `commit`; its gitlinks when known without a
    listing of the whole tree."""
    last = _take_settled(lock)
    if _own_git_dir(repo, path) is None and pool.adopt(repo.common_dir, path) is None:
        _add(repo, path, commit)
    elif last is None or not _move(path, last, commit, repo.layout.no_hooks):
        _reset(path, commit, repo.layout.no_hooks)
    else:
        return _moved_gitlinks(path, last, commit)
    return None


def _populate(repo: GitRepo, worktree: Worktree, commit: str, known: dict[str, str] | None) -> None:
    """The submodules of `commit` (`known`, or listed), from the user's own repositories."""
    worktree.gitlinks = submodules.gitlinks(worktree.path, commit) if known is None else known
    if worktree.gitlinks:
        config = _hookless(repo.layout.no_hooks)
        worktree.notes = submodules.populate(
            worktree.path, repo.toplevel, worktree.gitlinks, config
        )


@contextmanager
def scratch_worktree(
    repo: GitRepo, commit: str, links: list[str], pool_dir: str = ""
) -> Iterator[Worktree]:
    """A worktree at `commit` for this process only; it stays in the pool afterwards.
    `pool_dir`: teddy.worktree.dir (gitstore.pool)."""
    folder = pool.open_pool(pool_dir, repo.common_dir, repo.toplevel)
    held: dict[Path, LockRecord] = {}
    for slot in range(POOL_SIZE):
        path, lock = folder / f"wt-{slot}", repo.layout.worktree_lock(slot)
        repo.layout.shared.make_folders(lock.parent)  # the locks, shared as git would share them
        if path.is_file() or (path.is_symlink() and not path.is_dir()):
            raise in_the_way(path, "a scratch worktree (a folder)")
        claim = _take_lock(lock)
        if claim.state is None:
            if claim.holder:
                held[lock] = claim.holder
            continue
        try:
            known = _prepare(repo, path, commit, lock)
            worktree = Worktree(path, lock, repo.layout.no_hooks, recovered_stale=not claim.state)
            worktree.repo, worktree.tree = repo, repo.tree_of(commit)
            worktree.recovery = list(claim.notes)
            _populate(repo, worktree, commit, known)
            worktree.linked = _link_ignored_paths(repo, path, links)
            yield worktree
        finally:
            lock.unlink(missing_ok=True)
        return
    raise _all_busy(held)


def remove_idle_worktrees(repo: GitRepo, pool_dir: str = "") -> None:
    """Remove the repository's scratch worktrees no run holds (`git teddy delete`: no copy
    of a deleted session's files stays in the cache), and the pool when it is left empty;
    the next `execute` makes a new one."""
    folder = pool.pool_folder(pool.cache_root(pool_dir), repo.common_dir)
    for slot in range(POOL_SIZE):
        path, lock = folder / f"wt-{slot}", repo.layout.worktree_lock(slot)
        if not os.path.lexists(path) or lock.is_dir():
            continue
        repo.layout.shared.make_folders(lock.parent)
        if _take_lock(lock).state is None:
            continue  # a run is using it
        try:
            if os.path.lexists(path):
                _remove(repo, path)
        finally:
            lock.unlink(missing_ok=True)
    pool.remove_if_empty(folder)
