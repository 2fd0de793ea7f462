"""The working tree's state as a tree, at the cost of one `git status`, or less.

gitstore.worktree_tree stages everything in a temporary copy of the user's index: a listing
of the untracked files, `git add -u` (reads and writes the whole index) and `write-tree`
(again). On a large repository that is more than `git status` itself. This module gets the
same tree from one `git status --porcelain=v2` and work proportional to what differs:

- The status runs on teddy's own copy of the user's index (`teddy/status/`), refreshed
  only when the user's index changes, with git's untracked cache switched on for that copy
  alone (`-c core.untrackedCache=true`): the folders whose mtime did not move are not read
  again. The user's index and config are never touched.
- The result is HEAD's tree with what status names put in it: staged entries as the index
  holds them, changed tracked files and untracked ones hashed as `git add` hashes them
  (`hash-object --stdin-paths`: their path's filters and line endings), deletions taken
  out. Only the folders on the way to those paths are read and written again.

Whatever this cannot mirror exactly says None, and the caller takes the staging way: an
unborn HEAD, a sparse checkout, a conflict, a submodule whose commit moved, a symlink or a
nested repository among the changes, a path with a newline.

Standard library and gitstore.runner only: the cached answer of `git teddy context` uses
it before anything heavy is imported.
"""

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path

from git_teddy.gitstore import runner

TREE_MODE = "40000"
SYMLINK = "120000"
OBJECT_TYPES = (b"tree", b"blob", b"commit", b"tag")
STALE_LOCK_SECONDS = 600  # a killed status's lock, an older copy: left alone for this long
STATUS = [
    "-c", "core.untrackedCache=true", "-c", "core.fsmonitor=false",
    "status", "--porcelain=v2", "-z", "--no-renames",
    "--untracked-files=normal", "--ignore-submodules=dirty",
]  # fmt: skip


Secrets = Callable[[list[str]], Collection[str]]


class CannotServe(Exception):
    """What the working tree holds needs the staging way (a reason, for debugging)."""


class Changes:
    """What status found, relative to HEAD: path -> (mode, oid) or None for gone; the files
    whose bytes must be hashed; the untracked folders to list. (No dataclass here: the
    `dataclasses` module imports `inspect`, which the cached `context` answer does without.)"""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[str, str] | None] = {}
        self.tracked: list[str] = []  # changed in the working tree
        self.untracked: list[str] = []
        self.folders: list[str] = []  # wholly untracked, `dir/`


def _mirror(index: Path, home: Path) -> Path:
    """teddy's copy of `index`, one per state of the user's index: a process still using an
    older copy (status writes its refreshed copy back) never overwrites a newer one."""
    info = index.stat()
    signature = f"{index} {info.st_size} {info.st_mtime_ns} {info.st_ino} {info.st_ctime_ns}"
    key = _digest(str(index))
    mirror = home / f"{key}-{_digest(signature)}.index"
    lock = Path(f"{mirror}.lock")
    if lock.exists() and time.time() - lock.stat().st_mtime > STALE_LOCK_SECONDS:
        lock.unlink(missing_ok=True)
    if mirror.exists():
        return mirror
    for older in home.glob(f"{key}-*.index"):  # one another process may be reading now
        with contextlib.suppress(OSError):  # or removing: gone is what we want
            if time.time() - older.stat().st_mtime > STALE_LOCK_SECONDS:
                older.unlink()
    temp = home / f"{key}.{os.getpid()}.tmp"
    temp.write_bytes(index.read_bytes())
    os.utime(temp, ns=(info.st_atime_ns, info.st_mtime_ns))  # git's racy checks read it
    os.replace(temp, mirror)
    return mirror


def _digest(text: str) -> str:
    """A short name for `text` (a file name, not a security check)."""
    return hashlib.sha1(os.fsencode(text), usedforsecurity=False).hexdigest()[:12]


def _records(output: str) -> Iterable[str]:
    return (record for record in output.split("\0") if record)


def parse_status(output: str) -> Changes:
    """The changes of a `status --porcelain=v2 -z --no-renames` listing, relative to HEAD."""
    changes = Changes()
    for record in _records(output):
        kind = record[0]
        if kind == "?":
            path = record[2:]
            (changes.folders if path.endswith("/") else changes.untracked).append(path)
            continue
        if kind != "1":  # "u": a conflict; "2": a rename, which --no-renames leaves out
            raise CannotServe(f"status record {kind}")
        xy, sub, _, mode_index, mode_tree, _, oid_index, path = record[2:].split(" ", 7)
        if sub != "N...":
            raise CannotServe(f"submodule {path}")
        staged, worked = xy[0], xy[1]
        if staged != ".":
            changes.entries[path] = None if staged == "D" else (mode_index, oid_index)
        if worked == "D":
            changes.entries[path] = None
        elif worked != ".":
            if mode_tree == SYMLINK:
                raise CannotServe(f"symlink {path}")
            changes.entries[path] = (mode_tree, "")  # its blob id comes once hashed
            changes.tracked.append(path)
    return changes


def _untracked_in(top: Path, env: dict[str, str], folders: Sequence[str]) -> list[str]:
    """The untracked files under `folders` (status names a wholly untracked folder once)."""
    if not folders:
        return []
    literal = ["--literal-pathspecs", "ls-files", "--others", "--exclude-standard", "-z"]
    args = [*literal, "--", *folders]
    listed = [rel for rel in runner.output(args, top, env).split("\0") if rel]
    if any(rel.endswith("/") for rel in listed):
        raise CannotServe("a nested repository")
    return listed


def _new_file_modes(top: Path, paths: Sequence[str]) -> dict[str, str]:
    """The mode `git add` gives each new file: its exec bit, unless core.fileMode is off."""
    modes = {}
    for path in paths:
        info = os.lstat(top / path)
        if not stat.S_ISREG(info.st_mode):
            raise CannotServe(f"not a regular file: {path}")  # a symlink, say
        modes[path] = "100755" if info.st_mode & stat.S_IXUSR else "100644"
    if "100755" in modes.values() and not _trusts_file_mode(top):
        return dict.fromkeys(modes, "100644")
    return modes


def _trusts_file_mode(top: Path) -> bool:
    args = ["config", "--type=bool", "--default=true", "core.fileMode"]
    return runner.output(args, top).strip() == "true"


def _hash_files(top: Path, paths: Sequence[str]) -> list[str]:
    """Store the files at `paths` as `git add` would (their path's filters, line endings)."""
    if not paths:
        return []
    feed = "".join(f"{_quoted(path)}\n" for path in paths)
    args = ["hash-object", "-w", "--stdin-paths"]
    oids = runner.output(args, top, input=feed).split()
    if len(oids) != len(paths):
        raise CannotServe("hash-object answered short")
    return oids


def _quoted(path: str) -> str:
    """`path` as a line of --stdin-paths: git unquotes a line that starts with a double
    quote, so such a path is given C-quoted."""
    if not path.startswith('"'):
        return path
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t") + '"'


class _Trees:
    """Trees read from the base and written back: `git cat-file --batch` in, one
    `hash-object -t tree --stdin-paths` out, ids computed here (sha1 or sha256, as the
    repository's ids are)."""

    def __init__(self, top: Path, scratch: Path) -> None:
        self.top, self.scratch = top, scratch
        self.base: dict[str, dict[bytes, tuple[bytes, bytes]]] = {}
        self.written: list[bytes] = []
        self.algorithm = "sha1"

    def read(self, head: str, folders: Sequence[str]) -> str:
        """Read HEAD's tree and each of `folders` in it (missing ones read as empty); the
        id of HEAD's tree."""
        asks = [f"{head}^{{tree}}", *(f"{head}:{folder}" for folder in folders)]
        feed = "".join(f"{ask}\n" for ask in asks).encode()
        out = runner.output_bytes(["cat-file", "--batch"], self.top, input=feed)
        root = ""
        for at, folder in enumerate(["", *folders]):
            header, _, out = out.partition(b"\n")
            parts = header.split(b" ")
            if len(parts) != 3 or parts[1] not in OBJECT_TYPES:  # "<ask> missing": new
                self.base[folder] = {}
                if at == 0:
                    raise CannotServe("no HEAD")
                continue
            oid, kind, size = parts[0].decode(), parts[1], int(parts[2])
            body, out = out[:size], out[size + 1 :]
            if at == 0:
                root, self.algorithm = oid, "sha256" if len(oid) == 64 else "sha1"
            self.base[folder] = _parse_tree(body, len(oid) // 2) if kind == b"tree" else {}
        return root

    def write(self, entries: dict[bytes, tuple[bytes, bytes]]) -> bytes:
        """The raw id of a tree holding `entries` (name -> (mode, raw id)), queued."""
        body = b"".join(
            mode + b" " + name + b"\0" + oid
            for name, (mode, oid) in sorted(entries.items(), key=_tree_order)
        )
        self.written.append(body)
        return hashlib.new(self.algorithm, b"tree %d\0" % len(body) + body).digest()

    def flush(self) -> None:
        if not self.written:
            return
        self.scratch.mkdir(parents=True, exist_ok=True)
        files = []
        for number, body in enumerate(self.written):
            file = self.scratch / f"tree-{os.getpid()}-{number}"
            file.write_bytes(body)
            files.append(file)
        try:
            feed = "".join(f"{file}\n" for file in files)
            args = ["hash-object", "-w", "-t", "tree", "--no-filters", "--stdin-paths"]
            runner.output(args, self.top, input=feed)
        finally:
            for file in files:
                file.unlink(missing_ok=True)


def _tree_order(item: tuple[bytes, tuple[bytes, bytes]]) -> bytes:
    name, (mode, _) = item
    return name + b"/" if mode == TREE_MODE.encode() else name


def _parse_tree(body: bytes, width: int) -> dict[bytes, tuple[bytes, bytes]]:
    entries, at = {}, 0
    while at < len(body):
        space = body.index(b" ", at)
        nul = body.index(b"\0", space)
        entries[body[space + 1 : nul]] = (body[at:space], body[nul + 1 : nul + 1 + width])
        at = nul + 1 + width
    return entries


def _folders_of(paths: Iterable[str]) -> list[str]:
    """Every folder on the way to `paths`, deepest first, the top ("") last."""
    folders: set[str] = set()
    for path in paths:
        parts = path.split("/")[:-1]
        folders.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    return [*sorted(folders, key=lambda folder: -folder.count("/") - 1), ""]


def _build(trees: _Trees, changes: dict[str, tuple[str, str] | None]) -> bytes | None:
    """The new top tree's raw id (None when it is empty): each folder on the way to a
    change rebuilt from its base entries, deepest first. A file put where a folder was
    wins over the folder's emptied tree; a new folder wins over a file taken out."""
    by_folder: dict[str, dict[bytes, tuple[str, str] | None]] = {}
    for path, entry in changes.items():
        parent, _, name = path.rpartition("/")
        by_folder.setdefault(parent, {})[name.encode()] = entry
    built: dict[str, bytes | None] = {}
    for folder in _folders_of(changes):
        entries = dict(trees.base.get(folder, {}))
        for key, entry in by_folder.get(folder, {}).items():
            if entry is None:
                entries.pop(key, None)
            else:
                entries[key] = (entry[0].encode(), bytes.fromhex(entry[1]))
        for inner, oid in built.items():
            parent, _, name = inner.rpartition("/")
            if parent != folder:
                continue
            if oid is not None:
                entries[name.encode()] = (TREE_MODE.encode(), oid)
            elif entries.get(name.encode(), (b"",))[0] == TREE_MODE.encode():
                del entries[name.encode()]
        built[folder] = trees.write(entries) if entries else None
    return built[""]


def status_tree(top: Path, index: Path, home: Path, scratch: Path, secrets: Secrets) -> str:
    """The working tree's state as a tree id (objects written); CannotServe when the
    staging way must answer. `home` holds the index copies, `scratch` temporary files;
    `secrets` names the untracked files to leave out."""
    if (index.parent / "info" / "sparse-checkout").exists() or not index.exists():
        raise CannotServe("a sparse checkout, or no index")
    env = {"GIT_INDEX_FILE": str(_mirror(index, home))}
    no_hooks = runner.hookless(scratch / "no-hooks")
    changes = parse_status(runner.output([*no_hooks, *STATUS], top, env))
    if any(entry is None and (top / path).is_dir() for path, entry in changes.entries.items()):
        raise CannotServe("a folder where a tracked file was")  # status does not look in
    untracked = changes.untracked + _untracked_in(top, env, changes.folders)
    left_out = set(secrets(untracked))
    added = [path for path in untracked if path not in left_out]
    if any("\n" in path for path in [*changes.entries, *added]):
        raise CannotServe("a path with a newline")  # a line of --stdin-paths and --batch
    modes = _new_file_modes(top, added)
    files = [*changes.tracked, *added]
    hashed = dict(zip(files, _hash_files(top, files), strict=True))
    for path in changes.tracked:
        changes.entries[path] = (changes.entries[path] or ("100644", ""))[0], hashed[path]
    for path in added:
        changes.entries[path] = (modes[path], hashed[path])
    trees = _Trees(top, scratch)
    root = trees.read("HEAD", _folders_of(changes.entries)[:-1])
    if not changes.entries:
        return root
    built = _build(trees, changes.entries)
    trees.flush()
    return built.hex() if built is not None else _empty_tree(top)


def _empty_tree(top: Path) -> str:
    args = ["hash-object", "-w", "-t", "tree", "--stdin"]
    return runner.output(args, top, input="").strip()
