"""Where a test finds git-teddy's scratch worktrees: in the per-user cache of the sealed HOME
(`sealed_env` sets no XDG_CACHE_HOME, so the outer one never leaks in), one pool folder per
repository, each worktree registered with git."""

from pathlib import Path

from testing.commands import git


def cache_root(env: dict[str, str]) -> Path:
    """The folder of every repository's pool under the test's HOME."""
    return Path(env["HOME"]) / ".cache" / "git-teddy"


def worktree_list(repo: Path, env: dict[str, str]) -> list[dict[str, str]]:
    """`git worktree list --porcelain`, one dict per worktree (`worktree`, `locked`, ...)."""
    entries = []
    for block in git(repo, env, "worktree", "list", "--porcelain").split("\n\n"):
        if block.strip():
            fields = (line.partition(" ") for line in block.splitlines())
            entries.append({key: value for key, _, value in fields})
    return entries


def scratch_entries(repo: Path, env: dict[str, str]) -> list[dict[str, str]]:
    """The worktrees git knows of in `repo` that are git-teddy's scratch ones (in the cache)."""
    root = cache_root(env)
    return [wt for wt in worktree_list(repo, env) if Path(wt["worktree"]).is_relative_to(root)]


def scratch_paths(repo: Path, env: dict[str, str]) -> list[Path]:
    return [Path(wt["worktree"]) for wt in scratch_entries(repo, env)]
