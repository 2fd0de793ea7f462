"""Paths named by a plan are confined to the repository (pure but for resolving symlinks)."""

from collections.abc import Collection
from pathlib import Path, PurePosixPath


class PathRefused(Exception):
    """A path a plan may not touch; the message says why, for the report and the model."""


def confine(root: Path, rel: str) -> Path:
    """The file `rel` inside `root`, or PathRefused for absolute paths, `..`, `.git` and
    symlinks that lead outside."""
    if not rel.strip():
        raise PathRefused("the path is empty")
    posix = PurePosixPath(rel)
    if posix.is_absolute() or Path(rel).is_absolute():
        raise PathRefused(f"{rel} is an absolute path; give a path relative to the repository root")
    if ".." in posix.parts:
        raise PathRefused(f"{rel} climbs out with '..'; paths must stay inside the repository")
    if any(part.lower() == ".git" for part in posix.parts):
        raise PathRefused(f"{rel} points into .git, which plans may not touch")
    real_root = root.resolve()
    target = (root / posix).resolve()
    if target != real_root and real_root not in target.parents:
        raise PathRefused(f"{rel} leads outside the repository through a symlink")
    return root / posix


def submodule_holding(rel: str, gitlinks: Collection[str]) -> str | None:
    """The submodule (among the `gitlinks` paths of a tree) that `rel` is or lies inside: a
    superproject snapshot holds only its commit, so a change there would be lost."""
    posix = PurePosixPath(rel)
    for candidate in (posix, *posix.parents):
        if str(candidate) in gitlinks:
            return str(candidate)
    return None
