"""Objects and refs written by git's own plumbing (`hash-object`, `mktree`, `update-ref`),
for repositories whose object format dulwich cannot write: dulwich reads SHA-256
repositories, but names the objects it writes with SHA-1 ids (git then cannot parse the
trees and commits that point at them). git writes either format, so GitRepo hands it the
same bytes dulwich would have stored. Signed commits are written by `git commit-tree -S`
in either format: git signs them as `git commit` would (gpg.format, user.signingKey)."""

import tempfile
from collections.abc import Iterable, Mapping
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


# The empty tree, which git knows in each object format without storing it.
EMPTY_TREE = {
    "sha1": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "sha256": "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
}


def signed_commit(
    cwd: Path, tree: str, parents: Iterable[str], message: str, who: Mapping[str, str]
) -> str:
    """A commit signed as git signs (`commit-tree -S`), by the author and committer `who`
    (GIT_AUTHOR_* and GIT_COMMITTER_* variables); the message is taken as is.
    GitFailed, with the signer's own words, when signing fails."""
    args = ["commit-tree", "-S", tree, *(arg for p in parents for arg in ("-p", p))]
    return runner.output(args, cwd, env=who, input=message).strip()


def try_signing(cwd: Path, object_format: str, who: Mapping[str, str]) -> None:
    """Sign a throwaway commit into a throwaway object folder: GitFailed as signed_commit
    would fail, without writing anything into the repository."""
    with tempfile.TemporaryDirectory(prefix="teddy-sign-") as objects:
        env = {**who, "GIT_OBJECT_DIRECTORY": objects}
        signed_commit(cwd, EMPTY_TREE[object_format], [], "teddy: signing check\n", env)
