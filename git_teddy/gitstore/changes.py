"""What commits and the staged index change, and what they hold, asked of git's plumbing:
the questions of git-teddy's hooks. Standard library only, like the runner, so a hook
starts in tens of milliseconds. Without `cwd`, git runs where the hook runs, in the
repository git passes it (GIT_DIR and GIT_INDEX_FILE honoured)."""

from collections.abc import Iterator, Sequence
from pathlib import Path

from git_teddy.gitstore import runner

SUBMODULE_MODE = "160000"
# Set in the environment of `git push` by `git teddy push` (GitRepo.push_refs), which the
# pre-push hook inherits: a push of session branches without it is a plain `git push`.
SESSION_PUSH_ENV = "TEDDY_HOOK_SESSION_PUSH"
FIELD, RECORD = "\x1f", "\x1e"  # separators no trailer or time contains


def is_null_id(sha: str) -> bool:
    """The all-zero id git uses for "no object" (a ref created or deleted)."""
    return set(sha) == {"0"}


def is_object_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def commit_id(rev: str, cwd: Path | None = None) -> str:
    """The commit `rev` names, or "" when it names none (an unborn HEAD, a missing object)."""
    args = ["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"]
    return runner.run(args, cwd).stdout.strip()


def commits_not_in(
    tip: str, remote: str, known: Sequence[str], cwd: Path | None = None
) -> list[str]:
    """Commits reachable from `tip` but neither from `remote`'s fetched branches (no remote:
    none) nor from the commits `known`."""
    remotes = [f"--remotes={remote}"] if remote else []
    return runner.output(["rev-list", tip, "--not", *remotes, *known], cwd).split()


def changed_blobs(commits: Sequence[str], cwd: Path | None = None) -> dict[str, str]:
    """blob -> a path it was at, for the files these commits add or change against each
    parent (a root commit: all its files; submodules left out)."""
    if not commits:
        return {}
    args = ["diff-tree", "--stdin", "-r", "-m", "--root", "--no-renames", "--no-commit-id", "-z"]
    fields = runner.output(args, cwd, input="\n".join(commits) + "\n").split("\0")
    blobs: dict[str, str] = {}
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.split()
        if len(parts) == 5 and parts[4] != "D" and parts[1] != SUBMODULE_MODE:
            blobs.setdefault(parts[3], path)
    return blobs


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
