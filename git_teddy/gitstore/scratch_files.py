"""A plan's files without a checkout: for a plan that runs no command, only the files it
names are checked out, into a scratch folder beside the scratch worktrees (outside the
project: gitstore.pool), and its result is a tree built from the base
tree and the blobs that changed. The cost follows the files the plan touches, not the size
of the repository (a scratch worktree checks out, resets and stages every file).

The round trip is the one a scratch worktree makes: files are written by `git
checkout-index` (eol, filters, ident, exec bits), and a changed file is stored by `git
hash-object -w --path=P`, the conversion `git add` applies; both read the attributes of the
user's working tree (the base snapshot's, unless the user changed them meanwhile).

Where a checkout is needed to get the same result, `scratch_files` says so (None) and the
caller uses a scratch worktree: a path through a symlink (the link's target would be read
or written), inside a submodule (a worktree populates it), a `.gitattributes` the plan
writes (the other files' conversion would follow it), or under a path linked from the
user's checkout (`teddy.worktree.link`).
"""

import os
import stat
import tempfile
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from git_teddy.gitstore import pool, runner
from git_teddy.gitstore.checkout import ATTRIBUTES
from git_teddy.gitstore.repo import GitRepo

TREE = "040000"
REGULAR = "100644"
EXECUTABLE = "100755"
NEEDS_CHECKOUT = ("120000", "160000")  # a symlink, a submodule


@dataclass(frozen=True)
class _Seen:
    """A file of the scratch folder: its mode (as git records it) and bytes."""

    mode: str
    data: bytes


def _under(path: str, links: Collection[str]) -> bool:
    """Whether `path` is, holds or lies inside one of the `links` paths."""
    for link in (link.strip("/") for link in links):
        if link and (path == link or path.startswith(f"{link}/") or link.startswith(f"{path}/")):
            return True
    return False


def _needs_checkout(
    paths: list[str], entries: dict[str, tuple[str, str]], links: list[str]
) -> bool:
    if any(mode in NEEDS_CHECKOUT for mode, _ in entries.values()):
        return True
    return any(PurePosixPath(p).name == ATTRIBUTES or _under(p, links) for p in paths)


def _check_out(repo: GitRepo, root: Path, entries: dict[str, tuple[str, str]]) -> None:
    """The files among `entries` written into `root` as `git checkout` writes them; the
    folders made (empty), so that a CREATE finds a folder where the base has one."""
    files = {path: entry for path, entry in entries.items() if entry[0] in (REGULAR, EXECUTABLE)}
    for path, (mode, _) in entries.items():
        if mode == TREE:
            (root / path).mkdir(parents=True, exist_ok=True)
    if not files:
        return
    index = root.parent / "index"
    env = {"GIT_INDEX_FILE": str(index)}
    no_hooks = runner.hookless(root.parent / "no-hooks")
    listing = "".join(f"{mode} {oid}\t{path}\0" for path, (mode, oid) in files.items())
    update = [*no_hooks, "update-index", "-z", "--index-info"]
    runner.output(update, repo.toplevel, env, input=listing)
    checkout = ["checkout-index", "--all", "--force", f"--prefix={root}/"]
    runner.output([*no_hooks, *checkout], repo.toplevel, env)


def _seen(file: Path) -> _Seen | None:
    """What a scratch file holds now; None for none (or no regular file: a folder)."""
    try:
        info = file.lstat()
        if not stat.S_ISREG(info.st_mode):
            return None
        return _Seen(EXECUTABLE if info.st_mode & stat.S_IXUSR else REGULAR, file.read_bytes())
    except OSError:
        return None


@dataclass
class ScratchFiles:
    """The files a plan touches, checked out from the tree `start` into `root`."""

    repo: GitRepo
    root: Path
    start: str
    paths: list[str]
    entries: dict[str, tuple[str, str]]
    before: dict[str, _Seen | None] = field(default_factory=dict)
    blobs: dict[_Seen, str] = field(default_factory=dict)  # stored already (`state` again)
    trees: dict[frozenset[tuple[str, tuple[str, str]]], str] = field(default_factory=dict)

    def _mode(self, path: str, seen: _Seen) -> str:
        """The mode `git add` would record: the file's exec bit, unless core.fileMode is
        false, where a file the tree holds keeps its mode (as git keeps the index's)."""
        old = self.entries.get(path)
        if old and old[0] in (REGULAR, EXECUTABLE) and not self.repo.trusts_file_mode():
            return old[0]
        return seen.mode

    def _store(self, path: str, seen: _Seen) -> str:
        if seen not in self.blobs:
            args = ["hash-object", "-w", f"--path={path}", str(self.root / path)]
            self.blobs[seen] = runner.output(args, self.repo.toplevel).strip()
        return self.blobs[seen]

    def changes(self) -> dict[str, tuple[str, str]]:
        """path -> (mode, blob) of each file that differs from what was checked out."""
        changed = {}
        for path in self.paths:
            seen = _seen(self.root / path)
            if seen is not None and seen != self.before[path]:
                changed[path] = (self._mode(path, seen), self._store(path, seen))
        return changed

    def state(self) -> str:
        """The tree `start` with the changed files in it (a journal's record, the result);
        asked after each action and at the end, each tree is written once."""
        changes = self.changes()
        key = frozenset(changes.items())
        if key not in self.trees:
            self.trees[key] = self.repo.tree_with_files(self.start, changes)
        return self.trees[key]


def _plain(paths: Collection[str]) -> list[str]:
    """The paths as git names them (`a//b/` is `a/b`), each once; those that cannot be in a
    tree are left out (the action refuses them on its own, wherever it runs)."""
    plain: dict[str, None] = {}
    for path in paths:
        posix = PurePosixPath(path)
        if posix.is_absolute() or ".." in posix.parts or not posix.parts or ".git" in posix.parts:
            continue
        plain[posix.as_posix()] = None
    return list(plain)


@contextmanager
def scratch_files(
    repo: GitRepo, tree: str, paths: Collection[str], links: list[str], pool_dir: str = ""
) -> Iterator[ScratchFiles | None]:
    """The files at `paths` of `tree` (a tree or commit) in a scratch folder, in the pool of
    the scratch worktrees (`pool_dir`: teddy.worktree.dir), outside the project as they are;
    None when the plan needs a checkout to get the result a scratch worktree would give."""
    plain = _plain(paths)
    start = repo.tree_of(tree)
    entries = repo.entries_at(start, plain)
    if _needs_checkout(plain, entries, links):
        yield None
        return
    scratch = pool.open_pool(pool_dir, repo.common_dir, repo.toplevel)
    with tempfile.TemporaryDirectory(dir=scratch, prefix=f"files-{os.getpid()}-") as folder:
        root = Path(folder) / "files"
        root.mkdir()
        _check_out(repo, root, entries)
        files = ScratchFiles(repo, root, start, plain, entries)
        files.before = {path: _seen(root / path) for path in plain}
        yield files
