"""Objects and refs written by git's own plumbing (`hash-object`, `mktree`, `update-ref`),
for repositories whose object format dulwich cannot write: dulwich reads SHA-256
repositories, but names the objects it writes with SHA-1 ids (git then cannot parse the
trees and commits that point at them). git writes either format, so GitRepo hands it the
same bytes dulwich would have stored."""

from collections.abc import Iterable
from pathlib import Path

from git_teddy.gitstore import runner

TREE_MODE = 0o040000
GITLINK_MODE = 0o160000


def write_object(cwd: Path, kind: str, data: bytes) -> str:
    """Store `data` as an object of `kind` (blob, commit), checked by git as it would check
    its own; its id in the repository's object format. A blob from stdin is stored as is:
    no attributes or filters apply."""
    return (
        runner.output_bytes(["hash-object", "-w", "-t", kind, "--stdin"], cwd, data)
        .decode()
        .strip()
    )


def _entry_type(mode: int) -> str:
    return {TREE_MODE: "tree", GITLINK_MODE: "commit"}.get(mode, "blob")


def write_tree(cwd: Path, entries: Iterable[tuple[bytes, int, str]]) -> str:
    """A tree of (name, mode, id) entries, built by `git mktree` (which sorts them as git
    does and checks that each object exists)."""
    lines = b"".join(
        b"%06o %s %s\t%s\0" % (mode, _entry_type(mode).encode(), sha.encode(), name)
        for name, mode, sha in entries
    )
    return runner.output_bytes(["mktree", "-z"], cwd, lines).decode().strip()


def swap_ref(cwd: Path, name: str, new: str, expected: str | None, reason: str) -> bool:
    """Move `name` from `expected` (None: must not exist) to `new`, atomically; False when
    git refused (the ref is not at `expected`, or another writer holds its lock)."""
    args = ["update-ref", "-m", reason, name, new, expected or ""]
    return runner.run(args, cwd).returncode == 0
