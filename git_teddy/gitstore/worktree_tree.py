"""The tree id of the user's working tree, with git alone: their index and files untouched.

First way (gitstore.status_tree): one `git status` on teddy's own copy of the index, with
git's untracked cache, and HEAD's tree with the changes it names put in: the cost of one
`git status` or less, whatever the size of the repository.

The staging way, for what status cannot mirror (a sparse checkout, a conflict, a symlink or
a nested repository among the changes, ...): a temporary index is seeded from the real one
(a copy that keeps its mtime, so git's racy checks stay exact), then `git add -u` on it
re-hashes only what changed, and the untracked files of one `ls-files --others` listing
(the one walk of the folders, which the secret check reads too) are added by `update-index
--add`. Both ways give the same tree (tests/test_status_tree.py compares them).

Untracked files that look like secrets (gitstore.secret_files) are left out, as ignored
ones are: never snapshotted, so never touched by applying or restoring either.

The cached answer of `git teddy context` is checked with this before anything heavy is
imported (gitstore's package loads dulwich only on first use); gitstore's snapshot uses the
same function, so both compute the same tree.
"""

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from git_teddy.gitstore import runner
from git_teddy.gitstore.secret_files import configured_globs, untracked_secrets
from git_teddy.gitstore.status_tree import CannotServe, status_tree


def _copy_keeping_mtime(source: Path, target: Path) -> None:
    """Copy bytes and mtime (what git's racy-clean checks read), nothing else."""
    stat = source.stat()
    target.write_bytes(source.read_bytes())
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _has_commit(folder: Path) -> bool:
    """Whether the nested repository at `folder` has a commit checked out (or is no
    repository at all: git then adds its files)."""
    if not (folder / ".git").exists():
        return True
    args = ["rev-parse", "--verify", "--quiet", "HEAD"]
    return runner.run(args, folder, isolated=True).returncode == 0


def _untracked(cwd: Path, env: dict[str, str]) -> list[str]:
    """The untracked, unignored paths (from the top; a nested repository as `dir/`): the
    one walk of the working tree's folders a snapshot makes, as `git status` makes one."""
    args = ["ls-files", "--others", "--exclude-standard", "--full-name", "-z", "--", ":/"]
    return [rel for rel in runner.output(args, cwd, env).split("\0") if rel]


def _add_listed(top: Path, env: dict[str, str], config: Sequence[str], listed: list[str]) -> None:
    """Stage the untracked files `listed` (paths from the top) without walking the folders
    again: `update-index --add` stores each as `git add` would (its path's filters and
    line endings), a nested repository with a commit as a gitlink; a file removed since the
    listing is left out (--remove), as `git add` would not have found it."""
    folders = [rel.rstrip("/") for rel in listed if rel.endswith("/")]
    unborn = {rel for rel in folders if not _has_commit(top / rel)}  # git add refuses those
    paths = [rel.rstrip("/") for rel in listed if rel.rstrip("/") not in unborn]
    if paths:
        update = [*config, "update-index", "--add", "--remove", "--replace", "-z", "--stdin"]
        runner.output(update, top, env, input="".join(f"{rel}\0" for rel in paths))


def worktree_tree(
    cwd: Path,
    index: Path,
    scratch: Path,
    status_home: Path,
    globs: Sequence[str] | None = None,
    top: Path | None = None,
) -> str:
    """Write the working tree's state as a tree object and return its id. `index` is the
    real index (Location.index_file); `scratch` holds the temporary one, `status_home`
    (Layout.status_indexes, made) teddy's copies of the index. `globs` are the
    `teddy.secretFiles` globs and `top` the top of the working tree, when the caller has
    them already (else they are read). gitstore.status_tree answers when it can (the cost
    of one `git status`); the staging way otherwise."""
    top = top or Path(runner.output(["rev-parse", "--show-toplevel"], cwd).strip())

    def secrets(untracked: list[str]) -> list[str]:
        return untracked_secrets(top, untracked, configured_globs(cwd, globs))

    try:
        return status_tree(top, index, status_home, scratch, secrets)
    except CannotServe:
        return staged_tree(cwd, index, scratch, globs, top)


def staged_tree(
    cwd: Path, index: Path, scratch: Path, globs: Sequence[str] | None, top: Path
) -> str:
    """worktree_tree the staging way: everything staged in a temporary copy of the index."""
    scratch.mkdir(parents=True, exist_ok=True)
    temp_index = scratch / f"index-{os.getpid()}"
    try:
        if index.exists():
            _copy_keeping_mtime(index, temp_index)
        env = {"GIT_INDEX_FILE": str(temp_index), "GIT_OPTIONAL_LOCKS": "0"}
        # No hooks: the user's post-index-change hook is not for teddy's temporary index.
        no_hooks = runner.hookless(scratch / "no-hooks")
        # One listing of the untracked files serves the secret check and the staging; the
        # tracked ones are refreshed by `add -u` (a stat each, as in `git status`).
        untracked = _untracked(cwd, env)
        # Secret-looking untracked files are left out as ignored ones are (issue 14 item 20):
        # a snapshot is pushed with its session, and nothing in it can be rewritten later.
        secrets = set(untracked_secrets(top, untracked, configured_globs(cwd, globs)))
        runner.output([*no_hooks, "add", "--sparse", "--update", "--", ":/"], cwd, env)
        _add_listed(top, env, no_hooks, [rel for rel in untracked if rel not in secrets])
        return runner.output([*no_hooks, "write-tree"], cwd, env).strip()
    finally:
        temp_index.unlink(missing_ok=True)
        Path(f"{temp_index}.lock").unlink(missing_ok=True)


def paths_entries(
    top: Path,
    index: Path,
    scratch: Path,
    paths: Sequence[str],
    globs: Sequence[str] | None = None,
) -> dict[str, tuple[str, str]]:
    """The index entries (path -> (mode, blob id), blobs stored) of `paths` (from the top; a
    folder stands for the files in it) as the working tree has them, nothing else of the
    working tree read: staged_tree's way on those paths alone, so its cost follows them,
    not the repository (issue 31 item 2). A path the working tree does not have (or has
    ignored, or secret-looking) has no entry, as a snapshot would leave it out.

    The real index is read once (one listing of those paths' entries and untracked files);
    the staging happens in a small index of their entries alone, never a copy of the whole
    index, so no git process reads or writes an index of every file of the repository.
    A skip-worktree entry stays as the index has it, as `git add` leaves it."""
    specs = [f":(literal){rel}" for rel in paths]
    scratch.mkdir(parents=True, exist_ok=True)
    # One listing of those paths, tagged: `?` untracked (a nested repository as `dir/`),
    # `S` skip-worktree, any other tag an entry of the index (its mode, blob and stage).
    listing = ["ls-files", "-z", "-t", "--stage", "--cached", "--others", "--exclude-standard"]
    real = {"GIT_INDEX_FILE": str(index), "GIT_OPTIONAL_LOCKS": "0"}
    known: list[str] = []  # `mode blob stage\tpath` of each entry
    tracked: dict[str, None] = {}  # the entries' paths to stage again (not skip-worktree)
    untracked: list[str] = []
    for item in runner.output([*listing, "--", *specs], top, real).split("\0"):
        tag, _, rest = item.partition(" ")
        if tag == "?":
            untracked.append(rest)
        elif rest:
            known.append(rest)
            if tag != "S":  # as `git add -u` would (which leaves skip-worktree entries)
                tracked.setdefault(rest.partition("\t")[2])
    with tempfile.TemporaryDirectory(dir=scratch, prefix="paths-") as folder:
        scan = {"GIT_INDEX_FILE": str(Path(folder) / "index"), "GIT_OPTIONAL_LOCKS": "0"}
        no_hooks = runner.hookless(scratch / "no-hooks")
        if known:
            listed = "".join(f"{entry}\0" for entry in known)
            index_info = [*no_hooks, "update-index", "-z", "--index-info"]
            runner.output(index_info, top, scan, input=listed)
        if tracked:  # each re-hashed (the small index has no stat data): they are few
            update = ["update-index", "--remove", "-z", "--stdin"]
            stdin = "".join(f"{rel}\0" for rel in tracked)
            runner.output([*no_hooks, *update], top, scan, input=stdin)
        secrets = set(untracked_secrets(top, untracked, configured_globs(top, globs)))
        _add_listed(top, scan, no_hooks, [rel for rel in untracked if rel not in secrets])
        found = runner.output(["ls-files", "--stage", "-z", "--", *specs], top, scan)
    entries: dict[str, tuple[str, str]] = {}
    for line in filter(None, found.split("\0")):
        meta, _, path = line.partition("\t")
        mode, blob, stage = meta.split(" ")
        if stage == "0":
            entries[path] = (mode, blob)
    return entries
