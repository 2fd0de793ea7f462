"""Partial and promisor clones (`git clone --filter=blob:none`): objects that are not here
yet, read through git, which fetches them from the promisor remote as it needs them.

dulwich reads the object store as it is, without git's lazy fetch, so an object it lacks is
asked of git (`git cat-file --batch`) before it counts as missing. A fetch of sessions into
a partial clone brings their blobs along in one request (`fetch_objects`), so reading a
session later needs no network; the files their snapshots hold stay lazy, as the project's
own do.

Standard library only, like the runner.
"""

from collections.abc import Sequence
from pathlib import Path

from git_teddy.gitstore import runner

# What git runs for a lazy fetch of its own (promisor-remote.c): no tags, no FETCH_HEAD, no
# submodules, the ids on stdin, no negotiation (the remote has them: it promised them).
FETCH_OBJECTS = [
    "-c",
    "fetch.negotiationAlgorithm=noop",
    "fetch",
    "--no-tags",
    "--no-write-fetch-head",
    "--recurse-submodules=no",
    "--filter=blob:none",
    "--stdin",
]


def read_object(sha: str, cwd: Path) -> tuple[str, bytes] | None:
    """(type, content) of an object as git reads it, fetching it from a promisor remote
    when this is a partial clone; None when git cannot have it either."""
    try:
        out = runner.output_bytes(["cat-file", "--batch"], cwd, f"{sha}\n".encode())
    except runner.GitFailed:  # the promisor remote could not be reached
        return None
    header, _, rest = out.partition(b"\n")
    parts = header.split()
    if len(parts) != 3 or not parts[2].isdigit():  # `<sha> missing`
        return None
    return parts[1].decode(), rest[: int(parts[2])]


def promisor_remotes(cwd: Path) -> list[str]:
    """The remotes this repository may fetch missing objects from (`remote.<name>.promisor`,
    or `extensions.partialClone`'s): none in a full clone."""
    args = ["config", "--get-regexp", r"^(remote\..*\.promisor|extensions\.partialclone)$"]
    found: list[str] = []
    for line in runner.run(args, cwd).stdout.splitlines():  # exit 1: none set
        key, _, value = line.partition(" ")
        if key == "extensions.partialclone":
            found.append(value)
        elif value.lower() in ("true", "yes", "on", "1"):
            found.append(key.removeprefix("remote.").removesuffix(".promisor"))
    return list(dict.fromkeys(found))


def missing_objects(tips: Sequence[str], cwd: Path, walk: bool = True) -> list[str]:
    """The objects reachable from `tips` that are not here (a partial clone's filtered
    blobs), listed without fetching any; without `walk`, those of the commits `tips` alone
    (their trees), not of their ancestors."""
    if not tips:
        return []
    args = ["rev-list", "--objects", "--missing=print", *([] if walk else ["--no-walk"])]
    out = runner.output([*args, "--stdin"], cwd, input="".join(f"{tip}\n" for tip in tips))
    return [line[1:] for line in out.splitlines() if line.startswith("?")]


def fetch_objects(remote: str, shas: Sequence[str], cwd: Path) -> bool:
    """Fetch `shas` from `remote` in one request, as git's own lazy fetch does. Whether it
    worked (a remote that refuses wants by id leaves them to be fetched one by one later)."""
    if not shas:
        return True
    args = [*FETCH_OBJECTS, "--", remote]
    return runner.run(args, cwd, input="".join(f"{sha}\n" for sha in shas)).returncode == 0
