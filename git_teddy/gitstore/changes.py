"""What commits and the staged index change, and what they hold, asked of git's plumbing:
the questions of git-teddy's hooks. Standard library only, like the runner, so a hook
starts in tens of milliseconds. Without `cwd`, git runs where the hook runs, in the
repository git passes it (GIT_DIR and GIT_INDEX_FILE honoured)."""

from collections.abc import Collection, Iterator, Sequence
from pathlib import Path

from git_teddy.gitstore import runner

# Set in the environment of `git push` by `git teddy push` (GitRepo.push_refs), which the
# pre-push hook inherits: a push of session branches without it is a plain `git push`.
SESSION_PUSH_ENV = "TEDDY_HOOK_SESSION_PUSH"
# Set by `git teddy push --allow-secret`: blob or commit ids (or paths), one a line, whose
# findings the pre-push hook lets through.
ALLOW_SECRETS_ENV = "TEDDY_HOOK_ALLOW_SECRETS"
# Set by `git teddy push`: the file the pre-push hook writes the secrets it refuses to, as
# records (artifacts/push_secrets.py), so push reads them rather than parsing messages.
SECRETS_FILE_ENV = "TEDDY_HOOK_SECRETS_FILE"
FIELD, RECORD = "\x1f", "\x1e"  # separators no trailer or time contains
# rev-list's blobs reachable from some commits and not from others (`-<id>` lines name the
# excluded edge commits; a blob's line has its path after a space, a commit's none).
REACHABLE_BLOBS = ["--objects-edge-aggressive", "--filter=object:type=blob"]


def is_null_id(sha: str) -> bool:
    """The all-zero id git uses for "no object" (a ref created or deleted)."""
    return set(sha) == {"0"}


def is_object_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def commit_id(rev: str, cwd: Path | None = None) -> str:
    """The commit `rev` names, or "" when it names none (an unborn HEAD, a missing object)."""
    args = ["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"]
    return runner.run(args, cwd).stdout.strip()


def read_blobs(blobs: Sequence[str], cwd: Path | None = None) -> Iterator[tuple[str, bytes]]:
    """Each blob's content, in one `git cat-file --batch`."""
    request = "".join(f"{blob}\n" for blob in blobs).encode()
    out = runner.output_bytes(["cat-file", "--batch"], cwd, input=request)
    at = 0
    for blob in blobs:
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        yield blob, out[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1


class CutBlob(bytes):
    """The first bytes of a file too large to read whole (session content, which may come
    from a teammate, is read within a limit); `size` is the whole file's."""

    size: int

    @classmethod
    def of(cls, data: bytes, size: int) -> "CutBlob":
        cut = cls(data)
        cut.size = size
        return cut


def blob_sizes(blobs: Sequence[str], cwd: Path | None = None) -> dict[str, int]:
    """The size of each of `blobs` that is a blob in the repository, in one `git cat-file
    --batch-check` (nothing is read of their contents)."""
    request = "".join(f"{blob}\n" for blob in blobs)
    args = ["cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)"]
    sizes: dict[str, int] = {}
    for line in runner.output(args, cwd, input=request).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "blob":
            sizes[parts[0]] = int(parts[2])
    return sizes


def blob_head(blob: str, limit: int, cwd: Path | None = None) -> bytes:
    """The first `limit` bytes of `blob`."""
    return runner.output_head(["cat-file", "blob", blob], cwd, limit)


def object_ids(specs: Sequence[str], cwd: Path | None = None) -> list[str | None]:
    """The object each `<rev>:<path>` names, None where it names none."""
    args = ["cat-file", "--batch-check=%(objectname)"]
    answers = runner.output(args, cwd, input="\n".join(specs) + "\n").splitlines()
    return [answer if is_object_id(answer) else None for answer in answers]


def staged_blobs(base: str, cwd: Path | None = None) -> dict[str, str]:
    """path -> staged blob, for the paths whose staged content differs from commit `base`'s
    (no `base`, before a first commit: every staged path)."""
    if not base:
        entries = runner.output(["ls-files", "--stage", "-z"], cwd).split("\0")
        return {e.split("\t", 1)[1]: e.split()[1] for e in entries if "\t" in e}
    args = ["diff-index", "--cached", "--no-renames", "-z", base]
    fields = runner.output(args, cwd).split("\0")
    blobs: dict[str, str] = {}
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.split()
        if len(parts) == 5 and parts[4] != "D":
            blobs[path] = parts[3]
    return blobs


def written_blobs(commits: Sequence[str], cwd: Path | None = None) -> set[str]:
    """The blobs each commit holds where its first parent holds another content (what a
    turn's result snapshot wrote over its base), in one `git diff-tree --stdin`."""
    if not commits:
        return set()
    args = ["diff-tree", "--stdin", "-r", "--no-commit-id", "--no-renames"]
    out = runner.output(args, cwd, input="".join(f"{c}\n" for c in commits))
    blobs = set()
    for line in out.splitlines():
        parts = line.split("\t", 1)[0].split()
        if len(parts) == 5 and parts[0].startswith(":") and parts[4] != "D":
            blobs.add(parts[3])
    return blobs


def history_trailers(
    tips: Sequence[str], cwd: Path | None = None
) -> list[tuple[int, dict[str, str]]]:
    """(commit time, trailers) of every commit on the first-parent histories of `tips`."""
    if not tips:
        return []
    fmt = f"--format=%ct{FIELD}%(trailers:only,unfold,separator=%x1f){RECORD}"
    args = ["log", "--first-parent", "--stdin", fmt]
    out = runner.output(args, cwd, input="\n".join(tips) + "\n")
    commits = []
    for record in out.split(RECORD):
        time, *trailers = record.strip().split(FIELD)
        if time.isdigit():
            commits.append((int(time), dict(_trailer(t) for t in trailers)))
    return commits


def _trailer(text: str) -> tuple[str, str]:
    key, _, value = text.partition(":")
    return key.strip(), value.strip()


def add_trailers(
    message_file: str, trailers: Sequence[tuple[str, str]], cwd: Path | None = None
) -> None:
    """Append `key: value` trailers to a commit message file, each unless already there."""
    args = ["interpret-trailers", "--in-place", "--if-exists", "addIfDifferent"]
    for key, value in trailers:
        args += ["--trailer", f"{key}: {value}"]
    runner.output([*args, message_file], cwd)


def remote_tracking_ids(remote: str, cwd: Path | None = None) -> list[str]:
    """What `remote`'s remote-tracking refs point at (none for a URL or an unknown name)."""
    if not remote or "/" in remote or ":" in remote:
        return []
    fmt = "--format=%(objectname)"
    return runner.output(["for-each-ref", fmt, f"refs/remotes/{remote}/"], cwd).split()


def new_history(
    tips: Sequence[str], known: Sequence[str], cwd: Path | None = None
) -> list[tuple[str, list[str], str]]:
    """(commit, parents, message) of every commit reachable from `tips` (tags peeled) but not
    from `known` (`git rev-list <tips> --not <known>`): what a push of `tips` sends to a
    remote that has `known`. Every id must name an object in this repository."""
    if not tips:
        return []
    request = "".join(f"{tip}\n" for tip in tips) + "".join(f"^{k}\n" for k in known)
    fmt = f"--format=%H %P{FIELD}%B{RECORD}"
    out = runner.output(["log", "--stdin", fmt], cwd, input=request)
    commits = []
    for record in out.split(RECORD):
        ids, _, message = record.lstrip("\n").partition(FIELD)
        if ids:
            commit, *parents = ids.split()
            commits.append((commit, parents, message))
    return commits


def new_blobs(tip: str, known: Sequence[str], cwd: Path | None = None) -> dict[str, str]:
    """blob -> a path it is at, for the blobs reachable from `tip` but not from `known`
    (`git rev-list --objects`: the blobs a push sends; submodules left out). A snapshot
    shares no history with the project's commits, so the trees of `known` count as known
    too (--objects-edge-aggressive), not only the objects of a history both share."""
    request = f"{tip}\n" + "".join(f"^{k}\n" for k in known)
    args = ["rev-list", *REACHABLE_BLOBS, "--stdin"]
    blobs: dict[str, str] = {}
    for line in runner.output(args, cwd, input=request).splitlines():
        blob, space, path = line.partition(" ")
        if space and blob != tip:  # commits come without a path; a pushed tag with its name
            blobs.setdefault(blob, path)
    return blobs


def blobs_reachable(
    blobs: Collection[str], known: Sequence[str], cwd: Path | None = None
) -> set[str]:
    """Those of `blobs` reachable from `known` anywhere in its history: what the remote has
    already, even when no tree of the pushed history's edge holds it (a file deleted in
    the remote's history and written again since). One walk of `known`'s history: asked
    only of the few blobs a scan flagged."""
    if not blobs or not known:
        return set()
    wanted = set(blobs)
    request = "".join(f"{k}\n" for k in known)
    args = ["rev-list", "--objects", "--filter=object:type=blob", "--stdin"]
    found = set()
    for line in runner.output(args, cwd, input=request).splitlines():
        blob = line.partition(" ")[0]
        if blob in wanted:
            found.add(blob)
    return found


def new_blob_count(tips: Sequence[str], known: Sequence[str], cwd: Path | None = None) -> int:
    """How many blobs are reachable from `tips` but not from `known`: the file contents a
    push of `tips` sends to a remote that has `known` (one a content, however many paths
    hold it). Blobs a partial clone has not fetched are not counted."""
    if not tips:
        return 0
    request = "".join(f"{tip}\n" for tip in tips) + "".join(f"^{k}\n" for k in known)
    args = ["rev-list", *REACHABLE_BLOBS, "--missing=allow-promisor", "--stdin"]
    out = runner.output(args, cwd, input=request)
    return sum(1 for line in out.splitlines() if " " in line)  # commits come without a path
