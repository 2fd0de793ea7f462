"""Writing blobs into the user's working tree exactly as `git checkout` writes them.

Each file goes through git's own checkout conversion for its path: line endings (`eol`,
`text`, `core.autocrlf`), `ident`, clean/smudge and long-running process filters (LFS),
`working-tree-encoding`; symlinks and executable bits as `core.symlinks` and
`core.fileMode` say. The files are put in a temporary index (in the derived-state folder,
never the user's index) and written by `git checkout-index`, so the cost follows the number
of files written, not the size of the repository.
"""

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from git_teddy.gitstore import runner
from git_teddy.gitstore.changes import read_blobs

ATTRIBUTES = ".gitattributes"
REGULAR_MODE = "100644"


@dataclass(frozen=True)
class Entry:
    """One file to write: its path from the top of the working tree, mode and blob."""

    path: str
    mode: str
    blob: str


def _stdin_paths(paths: Sequence[str]) -> str:
    return "".join(f"{path}\0" for path in paths)


def checkout_blobs(toplevel: Path, scratch: Path, entries: Sequence[Entry]) -> None:
    """Write `entries` into the working tree at `toplevel`, replacing what is there.
    `scratch` holds the temporary index. The caller has cleared the way: whatever sits
    at an entry's path (or a folder in its way) is git's to replace."""
    if not entries:
        return
    scratch.mkdir(parents=True, exist_ok=True)
    index = scratch / f"checkout-index-{os.getpid()}"
    env = {"GIT_INDEX_FILE": str(index)}
    try:
        listing = "".join(f"{e.mode} {e.blob}\t{e.path}\0" for e in entries)
        no_hooks = runner.hookless(scratch / "no-hooks")
        update = [*no_hooks, "update-index", "-z", "--index-info"]
        runner.output(update, toplevel, env, input=listing)
        # Attribute files first: the rest is converted by the attributes it will have,
        # as `git checkout` does when a commit changes .gitattributes.
        attributes = [e.path for e in entries if PurePosixPath(e.path).name == ATTRIBUTES]
        others = [e.path for e in entries if PurePosixPath(e.path).name != ATTRIBUTES]
        for paths in (attributes, others):
            if paths:
                args = [*no_hooks, "checkout-index", "--force", "-z", "--stdin"]
                runner.output(args, toplevel, env, input=_stdin_paths(paths))
    finally:
        index.unlink(missing_ok=True)
        Path(f"{index}.lock").unlink(missing_ok=True)


def worktree_forms(toplevel: Path, scratch: Path, blobs: Mapping[str, str]) -> dict[str, bytes]:
    """What `git checkout` would write for each blob (by path: `blobs` maps paths to blob
    ids); the working tree is not touched. The model sees files as the user's editor does,
    and as EDIT finds them in a scratch worktree. Blobs that no conversion applies to are
    read as stored, in one `git cat-file --batch`; the others are checked out into a
    temporary folder and read back (writing files costs ten times more)."""
    if not blobs:
        return {}
    plain = _unconverted(toplevel, scratch, blobs)
    stored = dict(read_blobs(list(dict.fromkeys(blobs[path] for path in plain)), toplevel))
    rest = {path: blob for path, blob in blobs.items() if path not in plain}
    converted = _checked_out(toplevel, scratch, rest)
    return {
        path: stored[blob] if path in plain else converted[path] for path, blob in blobs.items()
    }


# Every attribute git's checkout conversion reads (convert.c); "unset" (`-text`) converts
# nothing either. Macros (`binary`) come expanded from check-attr.
CONVERSION_ATTRIBUTES = ("text", "eol", "crlf", "ident", "filter", "working-tree-encoding")
# core.autocrlf values under which a file without attributes is written as stored.
NO_AUTOCRLF = ("", "false", "no", "off", "0", "input")


def _unconverted(toplevel: Path, scratch: Path, blobs: Mapping[str, str]) -> set[str]:
    """The paths that `git checkout` writes exactly as stored. Attributes are read as the
    temporary index of `_checked_out` would give them: an empty index (`.gitattributes`
    files listed themselves, rare, send every path the long way)."""
    paths = list(blobs)
    if any(PurePosixPath(path).name == ATTRIBUTES for path in paths):
        return set()
    autocrlf = runner.run(["config", "--get", "core.autocrlf"], toplevel)
    if autocrlf.returncode not in (0, 1) or autocrlf.stdout.strip().lower() not in NO_AUTOCRLF:
        return set()
    env = {"GIT_INDEX_FILE": str(scratch / f"no-index-{os.getpid()}")}  # never created
    args = ["check-attr", "-z", "--stdin", *CONVERSION_ATTRIBUTES]
    fields = runner.output(args, toplevel, env, input=_stdin_paths(paths)).split("\0")
    converting = {
        path
        for path, value in zip(fields[0::3], fields[2::3], strict=False)
        if value not in ("unspecified", "unset")
    }
    return set(paths) - converting


def _checked_out(toplevel: Path, scratch: Path, blobs: Mapping[str, str]) -> dict[str, bytes]:
    """`blobs` written by `git checkout-index` into a temporary folder, and read back."""
    if not blobs:
        return {}
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=scratch, prefix="forms-") as folder:
        env = {"GIT_INDEX_FILE": str(Path(folder) / "index")}
        files = Path(folder) / "files"
        listing = "".join(f"{REGULAR_MODE} {blob}\t{path}\0" for path, blob in blobs.items())
        no_hooks = runner.hookless(scratch / "no-hooks")
        update = [*no_hooks, "update-index", "-z", "--index-info"]
        runner.output(update, toplevel, env, input=listing)
        checkout = ["checkout-index", "--all", "--force", f"--prefix={files}/"]
        runner.output([*no_hooks, *checkout], toplevel, env)
        return {path: (files / path).read_bytes() for path in blobs}
