"""A scratch worktree's state after an action that named the files it wrote: the last
state's tree with those files hashed into it, nothing else of the worktree read (issue 31
item 3: reading a turn's result back costs what changed, not what the tree holds).

The files are taken as `git add --all` would take them: a file the tree holds is updated
whatever the ignore rules say, a new one only when git does not ignore it; its blob is what
`git hash-object --path` stores (the path's attributes and filters, as `git add`), its mode
the exec bit, or the tree's mode when core.fileMode is false. Whatever the fast way cannot
tell the same way is left to a scan (None): a symlink on the way (the write went elsewhere),
a deleted file, a `.gitattributes` (the other files' conversion follows it), a path in a
submodule or a link, a name git would refuse or fold (core.ignoreCase)."""

import os
import stat
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from git_teddy.gitstore import runner
from git_teddy.gitstore.checkout import ATTRIBUTES
from git_teddy.gitstore.repo import GitRepo

TREE = "040000"
REGULAR = "100644"
EXECUTABLE = "100755"


@dataclass
class Written:
    """What a scratch worktree's actions may have written since its last state: `paths`, or
    `anything` (a command ran)."""

    paths: dict[str, None] = field(default_factory=dict)
    anything: bool = False

    def add(self, paths: Sequence[str] | None) -> None:
        if paths is None:
            self.anything = True
        else:
            self.paths.update(dict.fromkeys(paths))


def plain_path(path: str) -> str | None:
    """`path` as git names it (`./a//b` is `a/b`), or None for one that is not a plain
    path inside the tree (the action refused it, or it is for a scan to judge)."""
    posix = PurePosixPath(path)
    parts = posix.parts
    if not parts or posix.is_absolute() or any(part in ("..", ".git") for part in parts):
        return None
    if "\n" in path or "\\" in path or path.startswith('"'):
        return None  # one a line for `hash-object --stdin-paths`, never C-quoted
    return posix.as_posix()


def under(path: str, folders: Collection[str]) -> bool:
    """Whether `path` is one of `folders` or lies inside one."""
    path = path.rstrip("/")
    return any(path == f or path.startswith(f"{f}/") for f in (f.strip("/") for f in folders))


@dataclass(frozen=True)
class Scan:
    """What `git status --porcelain=v2 -z` said of a worktree (Worktree.stage_all)."""

    changed: list[str]  # tracked paths whose file differs from the index (or is gone)
    untracked: list[str]  # untracked files, a nested repository as `dir/`
    ignored: list[str]  # ignored files, a wholly ignored folder as `dir/`

    def staged(self) -> list[str]:
        return [*self.changed, *self.untracked]


def parse_scan(listing: str) -> Scan:
    """A status listing in porcelain v2 with -z and --no-renames: entries `1 XY ... path`
    (Y, the worktree's side, `.` when the file is as staged), `? path`, `! path`."""
    scan = Scan([], [], [])
    for entry in listing.split("\0"):
        kind, _, rest = entry.partition(" ")
        if kind == "1":
            fields = rest.split(" ", 7)
            if len(fields) == 8 and fields[0][1] != ".":
                scan.changed.append(fields[7])
        elif kind == "?":
            scan.untracked.append(rest)
        elif kind == "!":
            scan.ignored.append(rest)
    return scan


def has_commit(folder: Path) -> bool:
    """Whether the nested repository at `folder` has a commit checked out (git stages it as
    a gitlink; one with none it cannot stage)."""
    args = ["rev-parse", "--verify", "--quiet", "HEAD"]
    return runner.run(args, folder, isolated=True).returncode == 0


@dataclass(frozen=True)
class Found:
    """files_tree's answer: the tree, the paths staged in it, the ignored ones left out."""

    tree: str
    staged: list[str]
    ignored: list[str]


def kind_at(top: str, path: str) -> int | None:
    """The file type at `path` (inside the folder `top`) when no symlink is on its way and
    each folder on it is a folder: stat.S_IFREG and the like, 0 when nothing is there; None
    otherwise."""
    parts = path.split("/")
    walked = top
    for number, part in enumerate(parts):
        walked = os.path.join(walked, part)
        try:
            mode = os.lstat(walked).st_mode
        except FileNotFoundError:
            return 0
        except OSError:
            return None
        if number < len(parts) - 1 and not stat.S_ISDIR(mode):
            return None  # a symlink or a file where a folder is
        if number == len(parts) - 1:
            return stat.S_IFMT(mode)
    return None


def files_tree(
    repo: GitRepo, top: Path, tree: str, paths: Collection[str], excluded: Collection[str]
) -> Found | None:
    """`tree` with the files at `paths` of the worktree at `top` as `git add --all` would
    stage them, and the paths put in; None when only a scan can tell (see the module's
    docstring). `excluded`: paths left to a scan (the links, the submodules)."""
    if repo.ignores_case():
        return None
    root = str(top)
    plain: list[str] = []
    for path in paths:
        rel = plain_path(path)
        if rel is None or PurePosixPath(rel).name == ATTRIBUTES or under(rel, excluded):
            return None
        plain.append(rel)
    held = repo.entries_at(tree, plain)
    present: dict[str, int] = {}
    for rel in plain:
        kind = kind_at(root, rel)
        if kind is None or kind not in (0, stat.S_IFREG):
            return None
        parents = [str(p) for p in PurePosixPath(rel).parents if str(p) != "."]
        if any(p in held and held[p][0] != TREE for p in parents):
            return None  # a file of the tree where a folder now is
        old = held.get(rel)
        if old is not None and old[0] not in (REGULAR, EXECUTABLE):
            return None  # a folder, a symlink or a submodule the tree holds there
        if kind == 0:
            if old is not None:
                return None  # deleted: for a scan
            continue  # nothing written after all
        present[rel] = os.lstat(os.path.join(root, rel)).st_mode
    new = [rel for rel in present if rel not in held]
    ignored = _ignored(top, new)
    for rel in ignored:
        del present[rel]
    if not present:
        return Found(tree, [], ignored)
    listing = "".join(f"{rel}\n" for rel in present)
    blobs = runner.output(
        ["hash-object", "-w", "--stdin-paths"], top, isolated=True, input=listing
    ).split()
    trusted = repo.trusts_file_mode()
    files: dict[str, tuple[str, str]] = {}
    for (rel, mode), blob in zip(present.items(), blobs, strict=True):
        old = held.get(rel)
        if trusted:
            file_mode = EXECUTABLE if mode & stat.S_IXUSR else REGULAR
        else:
            file_mode = old[0] if old is not None else REGULAR
        if old != (file_mode, blob):
            files[rel] = (file_mode, blob)
    return Found(repo.tree_with_files(tree, files), list(present), ignored)


def _ignored(top: Path, paths: list[str]) -> list[str]:
    """Those of the untracked `paths` git's ignore rules leave out (`git add` would not
    stage them)."""
    if not paths:
        return []
    args = ["check-ignore", "--no-index", "-z", "--stdin"]
    listing = "".join(f"{rel}\0" for rel in paths)
    proc = runner.run(args, top, isolated=True, input=listing)
    if proc.returncode not in (0, 1):  # 1: none of them is ignored
        raise runner.failure(args, proc.stderr.strip())
    return [rel for rel in proc.stdout.split("\0") if rel]
