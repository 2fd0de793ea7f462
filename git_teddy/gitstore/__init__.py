"""All git access of git-teddy lives in this package: every git process starts in `runner`,
and callers ask for named operations, never for git's own arguments.

    runner         starting git (standard library only)
    plumbing       where a repository is, its settings, refs and hooks path (stdlib only)
    changes        what commits and the staged index change: the hooks' questions (stdlib)
    layout         every path of the derived-state folder `<git-common-dir>/teddy/` (stdlib)
    worktree_tree  the tree of the working tree, through a temporary index (stdlib)
    repo           GitRepo, made of parts: config, objects, trees, writing (the write
                   engine chosen once), refs, remotes, blame, diffs
    promisor       partial clones: objects dulwich lacks, read and fetched through git
    snapshot       the working tree as a commit
    worktree       the pool of scratch worktrees where plans run
    pool           where they live: a per-user cache folder outside the project
    scratch_files  a plan without commands: the files it names, its result as a tree
    submodules     a scratch worktree's submodules, borrowing the user's objects
    apply          a turn's result brought into the working tree

The names below load on first use (PEP 562), so that the fast paths (`git teddy list`,
`context`, the hooks), which use the standard-library modules only, do not pay for
importing dulwich."""

from importlib import import_module

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hooks load this
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


def __getattr__(name: str) -> object:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
