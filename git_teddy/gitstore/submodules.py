"""Submodules in scratch worktrees: each populated from the user's own submodule repository.

A scratch worktree is checked out from a superproject commit, whose submodules are only
gitlinks (a path and a commit id): their folders come out empty, so a plan's build or tests
could not see their files. Each gitlink whose repository the user has (an initialised
submodule, or a nested repository a snapshot recorded) gets, in the scratch worktree, a
small repository of its own that borrows the user's objects through `objects/info/alternates`
and is checked out at the gitlink's commit, nested gitlinks in turn.

Why not `git submodule update` or `git worktree add` of the user's submodule: the first
clones (a URL, maybe the network, the user's `.gitmodules` and hooks); the second registers
a worktree in the user's submodule repository, and an EXECUTE's `git commit` or `git branch`
in it would write there. Borrowing is one way: nothing of the user's is written, nothing is
fetched, and the user's hooks never run (the caller's `config` points hooks elsewhere). A
reused scratch worktree keeps these repositories: moving one to another commit rewrites only
the files that differ.

What a plan does inside a submodule cannot be part of a superproject snapshot (its tree
holds the gitlink, not the files), so the caller leaves gitlinks out of the result and
`changed` names the submodules whose files a run changed.
"""

import shutil
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from git_teddy.gitstore import runner

GITLINK_MODE = "160000"


def gitlinks(
    cwd: Path, commit: str, paths: Collection[str] | None = None, isolated: bool = True
) -> dict[str, str]:
    """The gitlinks of `commit`'s tree: path -> commit id. All of them, nested folders
    included; or, given `paths`, those among the paths and the folders holding them (a cost
    that follows the paths, not the tree). `isolated`: the repository is found from `cwd`,
    whatever GIT_DIR the user's shell has (a scratch worktree)."""
    if paths is None:
        args = ["ls-tree", "-r", "-z", "--full-tree", commit]
    else:
        pure = [PurePosixPath(path) for path in paths]
        prefixes = {str(p) for path in pure for p in (path, *path.parents)} - {"."}
        if not prefixes:
            return {}
        args = ["ls-tree", "-z", "--full-tree", commit, "--", *sorted(prefixes)]
    links = {}
    for entry in runner.output(args, cwd, isolated=isolated).split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[0] == GITLINK_MODE:
            links[path] = parts[2]
    return links


@dataclass(frozen=True)
class Source:
    """The user's repository of a submodule: where its objects are, and their format."""

    objects: Path
    object_format: str


def _source(user_folder: Path) -> Source | None:
    """The repository checked out at the user's `user_folder`, when it has one of its own
    (`.git` there, a folder or a gitfile); None for an uninitialised submodule."""
    if not (user_folder / ".git").exists():
        return None  # git would find the superproject's repository from here
    args = ["rev-parse", "--path-format=absolute", "--git-common-dir", "--show-object-format"]
    proc = runner.run(args, user_folder, isolated=True)
    lines = proc.stdout.split("\n")
    if proc.returncode != 0 or len(lines) < 2:
        return None  # a broken `.git`: git itself could not use it either
    return Source(Path(lines[0]) / "objects", lines[1].strip())


def _alternates(folder: Path) -> Path:
    return folder / ".git" / "objects" / "info" / "alternates"


def _borrowing(folder: Path, source: Source) -> bool:
    """Whether `folder` holds the repository made here earlier for `source`."""
    try:
        return _alternates(folder).read_text(encoding="utf-8").strip() == str(source.objects)
    except OSError:
        return False


def _make(folder: Path, source: Source, config: list[str]) -> None:
    """A new, empty repository at `folder` that reads the user's objects. Whatever was in
    `folder` is scratch content (a leftover of an earlier run): it goes."""
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        _empty(folder)  # scratch content only: an earlier run's leftovers
    folder.mkdir(parents=True, exist_ok=True)
    # --template= : no sample hooks or other template files are copied in.
    init = ["init", "--quiet", "--template=", f"--object-format={source.object_format}"]
    runner.output([*config, *init, str(folder)], folder, isolated=True)
    alternates = _alternates(folder)
    alternates.parent.mkdir(parents=True, exist_ok=True)
    alternates.write_text(f"{source.objects}\n", encoding="utf-8")


def _empty(folder: Path) -> None:
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)  # links to elsewhere are unlinked, never followed
        else:
            child.unlink()


def _checkout(folder: Path, commit: str, config: list[str]) -> bool:
    """Move the repository at `folder` to `commit`, detached as git leaves a submodule;
    False when the user's repository does not have that commit (it is behind)."""
    probe = runner.run([*config, "cat-file", "-e", f"{commit}^{{commit}}"], folder, isolated=True)
    if probe.returncode != 0:
        return False
    runner.output([*config, "update-ref", "--no-deref", "HEAD", commit], folder, isolated=True)
    runner.output([*config, "reset", "--quiet", "--hard", "HEAD"], folder, isolated=True)
    # -x also removes ignored leftovers of the previous run (build output, caches).
    runner.output([*config, "clean", "-ffdxq"], folder, isolated=True)
    return True


def populate(
    root: Path, user_root: Path, links: dict[str, str], config: list[str], prefix: str = ""
) -> list[str]:
    """Check out, in the worktree at `root`, each gitlink of `links` from the repository at
    the same path under the user's `user_root`, and their own gitlinks in turn. `config`
    is put before every git command (no hooks). One note per submodule left empty because
    its commit is missing; an uninitialised submodule stays empty without a note, as in git.
    `prefix` is where `root` is in the superproject, for the notes."""
    notes = []
    for path, commit in sorted(links.items()):
        folder, user_folder = root / path, user_root / path
        source = _source(user_folder)
        if source is None:
            continue
        if not _borrowing(folder, source):
            _make(folder, source, config)
        if not _checkout(folder, commit, config):
            _empty(folder)  # as git leaves a submodule it cannot check out
            notes.append(
                f"submodule {prefix}{path} is left empty: its commit {commit[:12]} is not in your "
                f"repository of it (`git submodule update` fetches it)"
            )
            continue
        nested = gitlinks(folder, commit)
        notes += populate(folder, user_folder, nested, config, f"{prefix}{path}/")
    return notes


def changed(root: Path, links: dict[str, str], config: list[str]) -> list[str]:
    """The submodules under `root` whose files differ from their gitlink's commit (edited,
    added, removed, or another commit checked out): what a superproject snapshot loses."""
    found = []
    for path, commit in sorted(links.items()):
        folder = root / path
        if not (folder / ".git").is_dir():
            # Never populated here: anything in its folder (or its folder gone) is a change.
            if not folder.is_dir() or any(folder.iterdir()):
                found.append(path)
            continue
        head = runner.run(
            [*config, "rev-parse", "--verify", "--quiet", "HEAD"], folder, isolated=True
        )
        status = runner.run(
            [*config, "status", "--porcelain", "--ignore-submodules=none"], folder, isolated=True
        )
        if head.stdout.strip() != commit or status.returncode != 0 or status.stdout:
            found.append(path)
    return found
