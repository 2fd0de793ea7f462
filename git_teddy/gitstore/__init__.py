"""All git access of git-teddy lives in this package."""

from git_teddy.gitstore.repo import CommitInfo, GitRepo, Identity
from git_teddy.gitstore.snapshot import snapshot_worktree

__all__ = ["CommitInfo", "GitRepo", "Identity", "snapshot_worktree"]
