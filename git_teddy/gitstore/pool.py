"""Where the scratch worktrees live: outside the user's project, in a per-user cache folder.

A worktree inside the project folder (an older git-teddy kept them in `.git/teddy/`) is a
second copy of the project that every tool searching the folder finds: a test runner runs
each test twice, and a file the user deleted keeps failing there; `grep -r`, IDE indexers
and file watchers see it too. So the pool of a repository is

    <cache>/<name>-<key>/wt-N      <cache>: teddy.worktree.dir, else $XDG_CACHE_HOME/git-teddy,
                                   else ~/.cache/git-teddy; <name>: the project folder's
                                   name; <key>: a hash of the repository's git dir
    <cache>/<name>-<key>/repository  that git dir, for the cleanup of pools whose
                                   repository is gone (`collect_garbage`)
    <cache>/<name>-<key>/files-*   a plan without commands: the files it names, for the
                                   run (gitstore.scratch_files)

Each worktree is registered with git as a linked worktree and locked with `LOCK_REASON`;
its lock file stays in the repository (gitstore.layout `worktree_lock`). A moved repository
has a new key: its worktrees are found through git's records of them (`adopt`), moved into
the new pool and relinked, as `git worktree repair` would, but for teddy's own worktrees
alone (`git worktree repair` rewrites the user's worktrees too, and in a copy of the
repository takes them away from the original).
"""

import hashlib
import os
import re
import shutil
from pathlib import Path

from git_teddy.errors import TeddyError
from git_teddy.gitstore import runner

CACHE_NAME = "git-teddy"
REPOSITORY_FILE = "repository"
LOCK_REASON = "git-teddy scratch worktree: plans run here; git teddy resets and reuses it"
_REASON_START = "git-teddy scratch worktree"  # what every git-teddy's lock reason begins with


def cache_root(setting: str) -> Path:
    """The folder of every repository's pool: `setting` (teddy.worktree.dir) when set."""
    if setting:
        root = Path(os.path.expanduser(setting))
        if not root.is_absolute():
            raise TeddyError(
                f"teddy.worktree.dir is {setting!r}, not an absolute path",
                "git config --global teddy.worktree.dir ~/.cache/git-teddy",
            )
        return root
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"  # as the spec says
    return base / CACHE_NAME


def _name_of(common_dir: str) -> str:
    path = Path(common_dir)
    name = path.parent.name if path.name == ".git" else path.name.removesuffix(".git")
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)[:40].lstrip(".") or "repository"


def pool_folder(root: Path, common_dir: Path) -> Path:
    """The pool of the repository whose git dir is `common_dir` (a copy or a moved
    repository has another)."""
    real = os.path.realpath(common_dir)
    key = hashlib.sha256(os.fsencode(real)).hexdigest()[:16]
    return root / f"{_name_of(real)}-{key}"


def open_pool(setting: str, common_dir: Path, toplevel: Path | None) -> Path:
    """The repository's pool folder, made (and its `repository` file written) when new.
    Refused inside the project's working tree, where it would be found as a copy."""
    folder = pool_folder(cache_root(setting), common_dir)
    if toplevel is not None and _inside(folder, toplevel):
        raise _inside_the_project(setting, folder, toplevel)
    record = folder / REPOSITORY_FILE
    if not record.is_file():
        # 0700, as the XDG spec asks: the worktrees are copies of the user's project.
        folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        folder.mkdir(exist_ok=True, mode=0o700)
        record.write_text(os.path.realpath(common_dir) + "\n", encoding="utf-8")
    return folder


def _inside_the_project(setting: str, folder: Path, toplevel: Path) -> TeddyError:
    """The pool would be a copy of the project inside it (a repository at the home folder
    has the default cache inside it too)."""
    which = "teddy.worktree.dir puts" if setting else "the default cache folder puts"
    return TeddyError(
        f"{which} the scratch worktrees inside the project {toplevel} ({folder}), where "
        "every tool searching the project would find a copy of it",
        "set a folder outside the project: git config teddy.worktree.dir /var/tmp/git-teddy",
    )


def _same(one: Path, other: Path) -> bool:
    return os.path.realpath(one) == os.path.realpath(other)


def _inside(path: Path, folder: Path) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def collect_garbage(root: Path) -> list[Path]:
    """Remove the pools whose repository is gone (its git dir no longer there); the pools
    removed. Cheap: one small file read per pool."""
    removed = []
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        try:
            recorded = (folder / REPOSITORY_FILE).read_text(encoding="utf-8").strip()
        except OSError:  # not a pool, or one being made
            continue
        if recorded and not os.path.isdir(recorded):
            shutil.rmtree(folder, ignore_errors=True)  # links to ignored paths: unlinked
            removed.append(folder)
    return removed


def remove_if_empty(folder: Path) -> None:
    """Remove a pool folder that holds nothing (its `repository` file alone): no worktree,
    no scratch files of a run (gitstore.scratch_files)."""
    if folder.is_dir() and all(p.name == REPOSITORY_FILE for p in folder.iterdir()):
        shutil.rmtree(folder, ignore_errors=True)


def pointer(path: Path) -> Path | None:
    """Where the `.git` file of the worktree at `path` says its administrative folder is."""
    try:
        text = (path / ".git").read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    if not text.startswith("gitdir: "):
        return None
    return path / text.removeprefix("gitdir: ").strip()  # relative or absolute


def registered_folder(git_dir: Path) -> Path | None:
    """The worktree folder git's record `git_dir` names."""
    try:
        backlink = (git_dir / "gitdir").read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    return (git_dir / backlink.strip()).parent


def points_back(git_dir: Path, path: Path) -> bool:
    """Whether git's record in `git_dir` names `path` as the worktree's folder."""
    folder = registered_folder(git_dir)
    return folder is not None and os.path.realpath(folder) == os.path.realpath(path)


def teddy_records(common_dir: Path) -> list[Path]:
    """git's records of the scratch worktrees of the repository (locked by git-teddy)."""
    records = []
    for git_dir in sorted((common_dir / "worktrees").glob("*")):
        try:
            reason = (git_dir / "locked").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if reason.startswith(_REASON_START):
            records.append(git_dir)
    return records


def adopt(common_dir: Path, path: Path) -> Path | None:
    """After the repository was moved, its scratch worktree for the slot at `path` is in the
    pool of its old place: move it to `path` and link it and git's record to each other
    again; the record, or None when there is none to adopt. A worktree whose `.git` names a
    record that is still there belongs to the original of a copied repository: left alone."""
    for git_dir in teddy_records(common_dir):
        old = registered_folder(git_dir)
        if old is None or old.name != path.name or _same(old.parent, path.parent):
            continue
        linked = pointer(old)
        if linked is None or linked.name != git_dir.name or os.path.lexists(linked):
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            old.rename(path)
        except OSError:  # another file system, or taken meanwhile: a new one is made
            continue
        (git_dir / "gitdir").write_text(f"{path / '.git'}\n", encoding="utf-8")
        (path / ".git").write_text(f"gitdir: {git_dir}\n", encoding="utf-8")
        remove_if_empty(old.parent)
        return git_dir
    return None


def forget_lost(common_dir: Path, root: Path, pool: Path) -> None:
    """Drop git's records of teddy's worktrees that are lost to this repository: in another
    pool of this cache (a moved repository's old one), whose folder is gone (what `git
    worktree prune` would do, which keeps them for their lock), or whose folder's `.git`
    names another record (a copied repository's record of the original's worktree: the
    original keeps its own). Records of the current pool are
    left to the runs that hold them; the user's are never touched."""
    for git_dir in teddy_records(common_dir):
        folder = registered_folder(git_dir)
        if folder is None or _same(folder.parent, pool):
            continue
        if not _inside(folder.parent, root):  # another user's cache: not seen
            continue
        linked = pointer(folder)
        if not os.path.lexists(folder) or (linked is not None and not _same(linked, git_dir)):
            shutil.rmtree(git_dir, ignore_errors=True)


DEPENDENCY_FOLDERS = ("node_modules", ".venv", "venv", "vendor/bundle")


def ignored_dependencies(toplevel: Path) -> list[str]:
    """The dependency folders (`DEPENDENCY_FOLDERS`) the project has and git ignores: in a
    worktree outside the project, its commands find them only when they are linked in (node
    looked them up in the project's folders while the worktree was inside it)."""
    present = [name for name in DEPENDENCY_FOLDERS if os.path.lexists(toplevel / name)]
    if not present:
        return []
    args = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]
    listed = runner.run([*args, "--", *present], toplevel, isolated=True).stdout.split("\0")
    return [name for name in present if f"{name}/" in listed]
