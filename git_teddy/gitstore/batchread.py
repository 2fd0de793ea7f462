"""Objects of many sessions read in bulk: one `git cat-file --batch` for any number of
revisions (`<tip>`, `<tip>^{tree}`, `<tip>:session.md`), each kept within a limit, and the
root of each first-parent history in one `git rev-list`. Standard library only, like the
runner: the session index reads thousands of fetched sessions this way without dulwich, in
a fixed number of git processes."""

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from git_teddy.gitstore import runner
from git_teddy.gitstore.changes import CutBlob

TREE_MODE = b"40000"


@dataclass(frozen=True)
class Found:
    """An object as `cat-file --batch` gave it: its id, type and content (a CutBlob when
    it held more than the limit)."""

    sha: str
    kind: str
    data: bytes


@dataclass(frozen=True)
class CommitFields:
    """What a raw commit says, as dulwich's Commit gives it: committer time and zone
    (seconds east of UTC), the author as "Name <email>", the message after the headers."""

    sha: str
    tree: str
    parents: tuple[str, ...]
    author: str
    timestamp: int
    tz_offset: int
    message: str


def read_objects(specs: Sequence[str], limit: int, cwd: Path | None) -> Iterator[Found | None]:
    """The object each revision of `specs` names (None when it names none), in order, as
    one `git cat-file --batch` gives them: of a larger object only its first `limit` bytes
    are kept, and a caller that uses each as it comes holds one at a time."""
    if not specs:
        return
    request = "".join(f"{spec}\n" for spec in specs).encode(runner.ENCODING, runner.ERRORS)
    with runner.streamed(["cat-file", "--batch", "--buffer"], cwd, request) as out:
        for _ in specs:
            yield _next_object(out, limit)


def _next_object(out: IO[bytes], limit: int) -> Found | None:
    header = out.readline().decode(runner.ENCODING, runner.ERRORS).split()
    if len(header) != 3 or not header[2].isdigit():  # "<spec> missing", "ambiguous"...
        return None
    sha, kind, size = header[0], header[1], int(header[2])
    data = out.read(min(size, limit))
    left = size - len(data) + 1  # the rest, read and dropped, and the newline after it
    while left > 0 and (chunk := out.read(min(left, 1 << 20))):
        left -= len(chunk)
    return Found(sha, kind, CutBlob.of(data, size) if size > limit else data)


def parse_commit(sha: str, data: bytes) -> CommitFields:
    """A raw commit's fields (ValueError when it is not one)."""
    head, _, message = data.partition(b"\n\n")
    tree, parents, author, committer = "", [], "", ""
    for line in head.decode(runner.ENCODING, "replace").split("\n"):
        key, _, value = line.partition(" ")
        if key == "tree":
            tree = value
        elif key == "parent":
            parents.append(value)
        elif key == "author":
            author = value
        elif key == "committer":
            committer = value
    who = author.rpartition("> ")[0]  # the time after it is the author's: dulwich's
    seconds, _, zone = committer.rpartition("> ")[2].partition(" ")  # commit time is this
    if not tree or not who or not seconds.isdigit():
        raise ValueError(f"commit {sha} could not be read")
    return CommitFields(
        sha=sha,
        tree=tree,
        parents=tuple(parents),
        author=f"{who}>",
        timestamp=int(seconds),
        tz_offset=_zone_seconds(zone),
        message=message.decode(runner.ENCODING, "replace"),
    )


def _zone_seconds(zone: str) -> int:
    if len(zone) != 5 or zone[0] not in "+-" or not zone[1:].isdigit():
        return 0
    seconds = int(zone[1:3]) * 3600 + int(zone[3:]) * 60
    return -seconds if zone[0] == "-" else seconds


def tree_names(sha: str, data: bytes) -> dict[str, bool]:
    """A raw tree's names, each mapped to whether it is a folder (`sha`'s length says the
    object format: SHA-1 or SHA-256)."""
    width = len(sha) // 2
    names: dict[str, bool] = {}
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        names[data[space + 1 : nul].decode(runner.ENCODING, runner.ERRORS)] = (
            data[at:space] == TREE_MODE
        )
        at = nul + 1 + width
    return names


def first_parent_roots(tips: Iterable[str], cwd: Path | None) -> dict[str, str]:
    """The root each tip's first-parent history ends at, in one `git rev-list`: every
    history is walked once, in git, whatever the number of tips."""
    wanted = list(dict.fromkeys(tips))
    if not wanted:
        return {}
    args = ["rev-list", "--first-parent", "--parents", "--stdin"]
    out = runner.output(args, cwd, input="".join(f"{tip}\n" for tip in wanted))
    first_parent: dict[str, str] = {}
    for line in out.splitlines():
        commit, _, parents = line.partition(" ")
        first_parent[commit] = parents.partition(" ")[0]
    return {tip: _root(tip, first_parent) for tip in wanted if tip in first_parent}


def _root(tip: str, first_parent: Mapping[str, str]) -> str:
    commit = tip
    while parent := first_parent.get(commit):
        commit = parent
    return commit
