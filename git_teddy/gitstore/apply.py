"""Bring a turn's result into the user's working tree as uncommitted changes.

HEAD, the branch and the index are never touched: only files change, and they are written
as `git checkout` writes them (gitstore.checkout: line endings, filters, ident, LFS). The
caller first snapshots the user's current state, so whatever happens here can be undone
with `restore`. When the user edited files since the turn's base, the result is merged
three-way with `git merge-tree`, as `git stash pop` merges: what merges cleanly is applied,
a text file both sides changed gets `git merge-file` conflict markers (labelled `yours` and
the turn), and a file that cannot hold markers (binary, a symlink, deleted on one side)
keeps the user's version; ApplyResult names both kinds.

Gitlinks (submodules, and nested repositories a snapshot recorded as gitlinks) are treated
as `git checkout` without --recurse-submodules treats them: their folders are never written,
deleted or entered; the result says where they differ (GitlinkNote). A change that cannot
be made without writing into one, through a symlink, or without losing files that are in no
snapshot, is refused (CannotApply) after checking the whole change list and before writing
anything.
"""

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from git_teddy.artifacts.paths import entry_problem
from git_teddy.errors import TeddyError
from git_teddy.gitstore import locks, promisor, runner
from git_teddy.gitstore.checkout import Entry, checkout_blobs
from git_teddy.gitstore.repo import GitRepo
from git_teddy.printable import quote_path

GITLINK_MODE = "160000"
ABSENT_MODE = "000000"
SHORT = 12  # digits of a commit id in a note
TEXT_MODES = ("100644", "100755")  # what `git merge-file` may put conflict markers in
YOURS = "yours"  # the user's side in conflict markers


class CannotApply(TeddyError):
    """The result cannot reach the working tree the way git would put it: nothing written."""


@dataclass(frozen=True)
class GitlinkNote:
    """A submodule (or nested repository) left as it is, where the new state differs."""

    path: str
    current: str | None  # the commit it is at, None when the old state had none here
    wanted: str | None  # the commit the new state records, None when it has none here
    submodule: bool  # listed in .gitmodules (else a nested repository of the user's)

    def line(self) -> str:
        kind = "submodule" if self.submodule else "nested repository"
        head = f"note: {kind} '{self.path}'"
        if self.current is None:
            fix = f"; to check it out: git submodule update --init -- {self.path}"
            return f"{head} is not checked out (the new state has it at {self.wanted})" + (
                fix if self.submodule else ""
            )
        if self.wanted is None:
            return f"{head} is left in place at {self.current}; the new state does not have it"
        fix = f"; to move it: git submodule update -- {self.path}" if self.submodule else ""
        return f"{head} is left at {self.current} while the new state has {self.wanted}{fix}"


@dataclass(frozen=True)
class ApplyResult:
    applied: bool
    changed_paths: list[str]
    conflicts: list[str]  # every conflicted file: with markers, or the user's version kept
    merged: bool  # the user had changed files too: the result is a three-way merge
    gitlinks: list[GitlinkNote] = field(default_factory=list)
    kept_yours: list[str] = field(default_factory=list)  # conflicts that hold no markers
    written_blobs: list[str] = field(default_factory=list)  # what went into the files


@dataclass(frozen=True)
class Merged:
    """The tree a three-way merge gives, and what conflicted in it."""

    tree: str
    conflicts: list[str]  # text files now holding conflict markers
    kept_yours: list[str]  # files left as the user has them (binary, symlink, deleted)


@dataclass(frozen=True)
class Stage:
    """One side of a conflicted path, as `git merge-tree` lists it (1 base, 2 ours, 3 theirs)."""

    mode: str
    blob: str


@dataclass(frozen=True)
class Change:
    """One path that differs between the user's state and the target (`git diff-tree -r`)."""

    status: str  # A, M, D, T
    path: str
    old_mode: str
    new_mode: str
    old_blob: str
    new_blob: str

    @property
    def old_gitlink(self) -> bool:
        return self.old_mode == GITLINK_MODE

    @property
    def new_gitlink(self) -> bool:
        return self.new_mode == GITLINK_MODE

    @property
    def writes(self) -> bool:
        """Whether a file (or symlink) is written at `path`."""
        return self.new_mode not in (ABSENT_MODE, GITLINK_MODE)

    @property
    def removes(self) -> bool:
        """Whether the file (or symlink) at `path` goes, leaving the place free."""
        return self.old_mode not in (ABSENT_MODE, GITLINK_MODE) and not self.writes


def _tree(repo: GitRepo, commit: str) -> str:
    return repo.read_commit(commit).tree


def _merge_stages(repo: GitRepo, ours: str, theirs: str) -> tuple[str, dict[str, dict[int, Stage]]]:
    """`git merge-tree`'s tree, and the stages of each conflicted path. Both sides are
    commits made on top of the same base, so git finds it as their merge base (git 2.39 has
    no --merge-base)."""
    args = ["merge-tree", "--write-tree", "-z", "--no-messages", ours, theirs]
    proc = runner.run(args, repo.cwd)  # exit 1: conflicts
    fields = proc.stdout.split("\0")
    if proc.returncode not in (0, 1) or not fields[0]:
        raise runner.failure(args, proc.stderr.strip())
    stages: dict[str, dict[int, Stage]] = {}
    for entry in filter(None, fields[1:]):
        meta, _, path = entry.partition("\t")
        mode, blob, stage = meta.split(" ")
        stages.setdefault(path, {})[int(stage)] = Stage(mode, blob)
    return fields[0], stages


def _merge_text(repo: GitRepo, sides: dict[int, Stage], labels: tuple[str, str]) -> str | None:
    """The blob of `git merge-file`'s result with conflict markers, None when the sides are
    not all text files (binary content, a symlink, a side deleted)."""
    if 2 not in sides or 3 not in sides or any(s.mode not in TEXT_MODES for s in sides.values()):
        return None
    scratch = repo.layout.shared.make_folders(repo.layout.scratch)
    with tempfile.TemporaryDirectory(dir=scratch, prefix="merge-") as folder:
        files = []
        for stage in (2, 1, 3):  # merge-file takes ours, base, theirs
            path = Path(folder) / str(stage)
            path.write_bytes(
                runner.output_bytes(["cat-file", "blob", sides[stage].blob], repo.cwd)
                if stage in sides
                else b""
            )  # add/add: an empty base
            files.append(str(path))
        ours, theirs = labels
        args = ["merge-file", "-p", "-L", ours, "-L", "base", "-L", theirs, *files]
        proc = runner.run(args, repo.cwd)  # exit N: N conflicts; 255: binary, not merged
        if not 0 <= proc.returncode < 128:
            return None
        store = ["hash-object", "-w", "--no-filters", "--stdin"]  # already in the repository's form
        return runner.output(store, repo.cwd, input=proc.stdout).strip()


def _with_entries(repo: GitRepo, tree: str, entries: dict[str, Stage | None]) -> str:
    """`tree` with the given paths set (None: removed), through a temporary index."""
    if not entries:
        return tree
    scratch = repo.layout.shared.make_folders(repo.layout.scratch)
    with tempfile.TemporaryDirectory(dir=scratch, prefix="merge-index-") as folder:
        env = {"GIT_INDEX_FILE": str(Path(folder) / "index")}
        runner.output(["read-tree", tree], repo.cwd, env)
        zero = "0" * len(tree)
        listing = "".join(
            f"{s.mode} {s.blob}\t{p}\0" if s else f"0 {zero}\t{p}\0" for p, s in entries.items()
        )
        runner.output(["update-index", "-z", "--index-info"], repo.cwd, env, input=listing)
        return runner.output(["write-tree"], repo.cwd, env).strip()


def _merge(repo: GitRepo, base: str, ours: str, theirs: str, label: str) -> Merged:
    """The user's state and the result merged: clean parts as git merges them, text
    conflicts with markers (`yours` / `label`), other conflicts as the user has them."""
    assert base in repo.read_commit(ours).parents and base in repo.read_commit(theirs).parents
    tree, stages = _merge_stages(repo, ours, theirs)
    overrides: dict[str, Stage | None] = {}
    conflicts: list[str] = []
    kept: list[str] = []
    for path, sides in sorted(stages.items()):
        blob = _merge_text(repo, sides, (YOURS, label))
        if blob is not None:
            overrides[path] = Stage(sides[2].mode, blob)
            conflicts.append(path)
        else:  # nothing to put markers in: the user's version stays, named
            overrides[path] = sides.get(2)
            kept.append(path)
    return Merged(_with_entries(repo, tree, overrides), conflicts, kept)


def _changes(repo: GitRepo, old_tree: str, new_tree: str) -> list[Change]:
    """Every path that differs, gitlinks included (diff-tree does not enter them)."""
    fields = repo.raw_tree_diff(old_tree, new_tree).split("\0")
    changes = []
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta:
            continue
        old_mode, new_mode, old_blob, new_blob, status = meta.lstrip(":").split(" ")
        changes.append(Change(status, path, old_mode, new_mode, old_blob, new_blob))
    return changes


def tree_changes(repo: GitRepo, old: str, new: str) -> list[Change]:
    """Every path that differs between two commits' trees (gitlinks included)."""
    return _changes(repo, _tree(repo, old), _tree(repo, new))


def changes_between_trees(repo: GitRepo, old_tree: str, new_tree: str) -> list[Change]:
    """Every path that differs between two trees (gitlinks included)."""
    return _changes(repo, old_tree, new_tree)


def _submodule_paths(repo: GitRepo) -> set[str]:
    """The paths .gitmodules (on disk, as `git submodule` reads it) names."""
    if not (repo.toplevel / ".gitmodules").is_file():
        return set()
    args = ["config", "--file", ".gitmodules", "--get-regexp", r"^submodule\..*\.path$"]
    proc = runner.run(args, repo.toplevel)  # exit 1: no submodule listed
    return {line.split(" ", 1)[1] for line in proc.stdout.splitlines() if " " in line}


def _gitlink_notes(repo: GitRepo, changes: list[Change]) -> list[GitlinkNote]:
    touched = [c for c in changes if c.old_gitlink or c.new_gitlink]
    listed = _submodule_paths(repo) if touched else set()
    return [
        GitlinkNote(
            c.path,
            c.old_blob[:SHORT] if c.old_gitlink else None,
            c.new_blob[:SHORT] if c.new_gitlink else None,
            c.path in listed,
        )
        for c in touched
    ]


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def _refuse_missing_blobs(repo: GitRepo, changes: list[Change]) -> None:
    """Every file to write must be here before one is written; a partial clone fetches what
    it lacks first (in one request), and when it cannot, nothing is written."""
    absent = repo.fetch_missing([c.new_blob for c in changes if c.writes])
    if not absent:
        return
    remotes = promisor.promisor_remotes(repo.cwd)
    where = f"git could not fetch them from {remotes[0]}" if remotes else "no remote has them"
    raise CannotApply(
        f"{len(absent)} file(s) of that state are not in this repository ({where}); nothing"
        " was changed",
        f"check that {remotes[0]} can be reached (`git fetch {remotes[0]}`), then run the"
        " command again"
        if remotes
        else "fetch the session with its snapshots: `git teddy fetch REMOTE`",
    )


def _refuse_gitlink_writes(changes: list[Change], q: Callable[[str], str]) -> None:
    """No file may be written at, inside or around a submodule's folder: git checkout
    (without --recurse-submodules) would not, and the folder holds the user's repository."""
    kept = [c.path for c in changes if c.old_gitlink]
    for change in (c for c in changes if c.writes):
        for gitlink in kept:
            if _inside(change.path, gitlink) or _inside(gitlink, change.path):
                raise CannotApply(
                    f"the new state puts {q(change.path)} where your working tree has the "
                    f"repository {q(gitlink)} (a submodule or nested repository); "
                    "git-teddy does not write into it",
                    f"move {q(gitlink)} out of the way (or `git rm` it if it is a submodule) "
                    "and run the command again; nothing was changed",
                )


def _symlink_on_the_way(top: Path, rel: str) -> str | None:
    """The first folder of `rel` that is a symlink in the working tree, if any: writing or
    deleting through it would reach wherever it points, outside the repository maybe."""
    for parent in reversed(PurePosixPath(rel).parents[:-1]):  # from the top down
        spot = top / parent
        if spot.is_symlink():
            return parent.as_posix()
        if not spot.is_dir():
            return None  # nothing further down exists to be followed
    return None


def _refuse_symlinked_paths(top: Path, changes: list[Change], q: Callable[[str], str]) -> None:
    """No write or deletion goes through a symlink, as git's checkout never follows one
    (its has_symlink_leading_path): a symlink the new state removes (and git would replace
    by a folder) is the only one a written path may cross."""
    removed = {c.path for c in changes if c.removes}
    for change in changes:
        if not (change.writes or change.removes):
            continue
        link = _symlink_on_the_way(top, change.path)
        if link is None or (change.writes and link in removed):
            continue
        target = os.readlink(top / link)
        verb = "writing" if change.writes else "deleting"
        raise CannotApply(
            f"{verb} {q(change.path)} would go through your symlink {q(link)} (to {q(target)}); "
            "git-teddy writes only inside the repository",
            f"move the symlink {q(link)} out of the way (or replace it by a folder) and run the "
            "command again; nothing was changed",
        )


def _unsaved(top: Path, folder: Path, removed: set[str]) -> str | None:
    """A file under `folder` that is in no snapshot (ignored, or inside a nested
    repository) and would go if the folder were replaced by a file; None if none."""
    for root, dirs, files in os.walk(folder):  # symlinks to folders are not entered
        for name in [*files, *dirs]:
            path = Path(root) / name
            rel = path.relative_to(top).as_posix()
            kept = path.is_symlink() or not path.is_dir()  # empty folders may go
            if name == ".git" or (kept and rel not in removed):
                return rel
    return None


def _parent_in_the_way(top: Path, rel: str, removed: set[str]) -> str | None:
    """A file or symlink where a folder of `rel` must be, and that is not going away."""
    for parent in reversed(PurePosixPath(rel).parents[:-1]):  # from the top down
        spot = top / parent
        if spot.is_symlink() or (spot.exists() and not spot.is_dir()):
            return None if parent.as_posix() in removed else parent.as_posix()
        if not spot.exists():
            return None
    return None


def _in_the_way(top: Path, change: Change, removed: set[str]) -> str | None:
    """What writing `change` would destroy that no snapshot holds, if anything."""
    target = top / change.path
    blocking = _parent_in_the_way(top, change.path, removed)
    if blocking is None and target.is_dir() and not target.is_symlink():
        blocking = _unsaved(top, target, removed)
    elif blocking is None and change.old_mode == ABSENT_MODE and os.path.lexists(target):
        blocking = change.path  # there, yet not in the saved state: an ignored file
    return blocking


def _refuse_overwrites(top: Path, changes: list[Change], q: Callable[[str], str]) -> None:
    """Everything a write replaces must be in the user's saved state and going away: an
    ignored file (or a folder of them, or a nested repository) is never lost."""
    removed = {c.path for c in changes if c.removes}
    for change in (c for c in changes if c.writes):
        blocking = _in_the_way(top, change, removed)
        if blocking:
            raise CannotApply(
                f"writing {q(change.path)} would replace {q(blocking)}, which is in no "
                "snapshot (an ignored file, or a nested repository)",
                f"move {q(blocking)} out of the way and run the command again; nothing was changed",
            )


def _refuse_paths_git_refuses(changes: list[Change]) -> None:
    """A snapshot from someone else's session may hold names git itself never checks out
    (`..`, `.git` in any spelling, an absolute path): all of them are found before anything
    is written, so the working tree is never left half-restored."""
    refused = [
        problem
        for change in changes
        if (problem := entry_problem(change.path) or _dot_part(change.path)) is not None
    ]
    if refused:
        shown = "; ".join(refused[:3]) + (
            f" (and {len(refused) - 3} more)" if len(refused) > 3 else ""
        )
        raise CannotApply(
            f"the snapshot holds paths git would refuse to check out: {shown}",
            "nothing was changed; the snapshot comes from a damaged or hostile session: "
            "delete it (`git teddy delete`) or ask its author where it came from",
        )


def _dot_part(path: str) -> str | None:
    return (
        f"{path} has an empty or `.` part" if any(p in ("", ".") for p in path.split("/")) else None
    )


def _remove(path: Path, top: Path) -> None:
    if path.is_symlink() or path.is_file():  # never a folder: what is in it is not ours
        path.unlink()
    parent = path.parent
    standing = _current_folders()
    while parent != top and parent.is_dir() and not any(parent.iterdir()):
        if parent.resolve() in standing:
            break  # the folder the user stands in (or one above it): git leaves it too
        parent.rmdir()  # folders left empty by the deletion go too, as git would do
        parent = parent.parent


def _refuse_held_index(repo: GitRepo) -> None:
    """Another git process holds the index (a commit being written, an interactive add, a
    rebase step): git's checkout and restore refuse to write files then, and so does
    teddy, before writing any (issue 26)."""
    lock = Path(f"{repo.index_file}.lock")
    if lock.exists():
        raise CannotApply(
            f"unable to create '{lock}': File exists (made {locks.describe_age(lock)} ago), "
            "so no file of yours was written",
            locks.WAY_OUT.format(lock=lock),
        )


def _current_folders() -> set[Path]:
    try:
        cwd = Path.cwd().resolve()
    except OSError:  # already gone: nothing to keep
        return set()
    return {cwd, *cwd.parents}


def applied_tree(repo: GitRepo, base: str, result: str, user_state: str, label: str) -> str:
    """The tree `apply_to_worktree(repo, base, result, user_state, label)` put in the
    working tree (the merge is made again: git's merge is deterministic), for `undo`."""
    if _tree(repo, user_state) == _tree(repo, base):
        return _tree(repo, result)
    return _merge(repo, base, user_state, result, label).tree


def apply_to_worktree(
    repo: GitRepo,
    base: str,
    result: str,
    user_state: str,
    label: str = "theirs",
    known: list[Change] | None = None,
) -> ApplyResult:
    """Move the user's files from `user_state` to `result`, merging when the user's state
    is not `base` (the snapshot the turn started from; `label` names the result in conflict
    markers). CannotApply, with nothing written, when a change would write into a submodule
    or lose a file no snapshot has. `known`: the caller's `tree_changes(base, result)`, not
    listed again when there is nothing to merge."""
    _refuse_held_index(repo)
    target = _tree(repo, result)
    merged = _tree(repo, user_state) != _tree(repo, base)
    conflicts: list[str] = []
    kept: list[str] = []
    if merged:
        outcome = _merge(repo, base, user_state, result, label)
        target, conflicts, kept = outcome.tree, outcome.conflicts, outcome.kept_yours
    listed = known if known is not None and not merged else None
    changes = listed if listed is not None else _changes(repo, _tree(repo, user_state), target)
    _refuse_paths_git_refuses(changes)
    _refuse_missing_blobs(repo, changes)
    quotes = repo.quotes_paths()  # file names in messages as git shows them (core.quotePath)

    def q(path: str) -> str:
        return quote_path(path, quotes)

    _refuse_gitlink_writes(changes, q)
    _refuse_symlinked_paths(repo.toplevel, changes, q)
    _refuse_overwrites(repo.toplevel, changes, q)
    for change in changes:
        if change.removes:  # a file replaced by a submodule goes too, as in git
            _remove(repo.toplevel / change.path, repo.toplevel)
    written = [Entry(c.path, c.new_mode, c.new_blob) for c in changes if c.writes]
    # Listed before they are written: the hook's shell check then sends a commit of them
    # to the Python side, which decides on the trailers (hooks/prepare-commit-msg).
    repo.layout.note_applied([c.new_blob for c in changes if c.writes])
    checkout_blobs(repo.toplevel, repo.layout.scratch, written)
    files = [c.path for c in changes if not (c.old_gitlink or c.new_gitlink)]
    notes = _gitlink_notes(repo, changes)
    blobs = [entry.blob for entry in written]
    return ApplyResult(True, files, sorted([*conflicts, *kept]), merged, notes, kept, blobs)
