"""All git access of git-teddy lives in this package.

The names below load on first use (PEP 562), so that read-only fast paths such as
`git teddy list` (which use `gitstore.refs_fast`) do not pay for importing dulwich."""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from git_teddy.gitstore.repo import CommitInfo, GitRepo, Identity
    from git_teddy.gitstore.snapshot import snapshot_worktree

_HOMES = {
    "CommitInfo": "repo",
    "GitRepo": "repo",
    "Identity": "repo",
    "snapshot_worktree": "snapshot",
}
__all__ = ["CommitInfo", "GitRepo", "Identity", "snapshot_worktree"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
