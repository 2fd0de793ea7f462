"""Paths named by a plan are confined to the repository (pure but for resolving symlinks)."""

import re
from collections.abc import Collection
from pathlib import Path, PurePosixPath

NAME_MAX = 255  # bytes in one file name: Linux, macOS and Windows file systems allow no more
# Code points HFS+ ignores in file names, so ".g\u200cit" is ".git" there (git's utf8.c
# next_hfs_char); git refuses them in `.git` on every system, and so do plans.
_HFS_IGNORED = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")
# NTFS drops trailing dots and spaces, reads `name:stream` as `name`, and gives `.git` the
# short name GIT~1 (git's path.c is_ntfs_dotgit, which core.protectNTFS applies everywhere).
_NTFS_DOTGIT = re.compile(r"(?:\.git|git~1)[. ]*(?::.*)?", re.IGNORECASE)


class PathRefused(Exception):
    """A path a plan may not touch; the message says why, for the report and the model."""


def is_dotgit(name: str) -> bool:
    """Whether the file name `name` is `.git` on some file system git protects: any case,
    NTFS's `.git.`, `.git ` `.git::$INDEX_ALLOCATION` and `GIT~1`, HFS+'s `.g\u200cit`. git's
    verify_path refuses them all, so a plan naming one could never be recorded."""
    return bool(_NTFS_DOTGIT.fullmatch(name)) or _HFS_IGNORED.sub("", name).lower() == ".git"


def name_problem(rel: str) -> str | None:
    """Why the relative path `rel` can never be a file of the repository, or None: a part
    that is `.git` in any of its forms, or a name longer than file systems allow."""
    for part in re.split(r"[/\\]", rel):
        if is_dotgit(part):
            return f"{rel} points into .git, which plans may not touch"
        if len(part.encode("utf-8", "surrogateescape")) > NAME_MAX:
            return f"{rel} has a file name longer than {NAME_MAX} bytes, which no file system takes"
    return None


def entry_problem(rel: str) -> str | None:
    """Why a context entry can name no file of the repository (absolute, `..`, `.git`, too
    long), or None: such an entry, in a committed or fetched context file, is left out with
    this note instead of reaching git."""
    if rel.startswith(("/", "\\")) or re.match(r"[A-Za-z]:[/\\]", rel):
        return f"{rel} is an absolute path; context entries are paths from the top"
    if ".." in re.split(r"[/\\]", rel):
        return f"{rel} leads outside the repository"
    return name_problem(rel)


def confine(root: Path, rel: str) -> Path:
    """The file `rel` inside `root`, or PathRefused for absolute paths, `..`, `.git` (in any
    of the forms `is_dotgit` knows), names too long, and symlinks that lead outside or into
    `.git`."""
    if not rel.strip():
        raise PathRefused("the path is empty")
    posix = PurePosixPath(rel)
    if posix.is_absolute() or Path(rel).is_absolute():
        raise PathRefused(f"{rel} is an absolute path; give a path relative to the repository root")
    if ".." in posix.parts:
        raise PathRefused(f"{rel} climbs out with '..'; paths must stay inside the repository")
    problem = name_problem(rel)
    if problem:
        raise PathRefused(problem)
    real_root = root.resolve()
    target = (root / posix).resolve()
    if target != real_root and real_root not in target.parents:
        raise PathRefused(f"{rel} leads outside the repository through a symlink")
    if name_problem(target.relative_to(real_root).as_posix()):  # a symlink to .git
        raise PathRefused(f"{rel} leads into .git through a symlink")
    return root / posix


def submodule_holding(rel: str, gitlinks: Collection[str]) -> str | None:
    """The submodule (among the `gitlinks` paths of a tree) that `rel` is or lies inside: a
    superproject snapshot holds only its commit, so a change there would be lost."""
    posix = PurePosixPath(rel)
    for candidate in (posix, *posix.parents):
        if str(candidate) in gitlinks:
            return str(candidate)
    return None
