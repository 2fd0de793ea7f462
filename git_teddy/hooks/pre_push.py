"""pre-push: refuses to push session refs that hold an unredacted secret.

Runs as `python -m git_teddy.hooks.pre_push REMOTE URL` with git's
`<local ref> <local sha> <remote ref> <remote sha>` lines on stdin. What is scanned:
- session branches (`refs/heads/<prefix>...`): every file each new commit adds or changes,
  new meaning not on the remote already (`git rev-list <local> --not <remote sha>
  --remotes=<remote>`). These trees are what git-teddy writes (context logs, prompts,
  replies, reports), so a secret in them means redaction missed it or someone added it;
- snapshot refs (`refs/<prefix>snapshots/...`): only the files the snapshot changed against
  its parent. A snapshot is the project's own files; scanning whole trees would re-read the
  project on every push and flag every test fixture, while the changed files are what a turn,
  a hand edit or the uncommitted state at session start put there.
Other refs are not this hook's business.

A crash fails closed: the hook only gets here when session refs are pushed (the shell block
lets every other push through without starting Python), and a security gate that opens
whenever it breaks is no gate. The message says so and names `--no-verify`.
"""

import sys
from collections.abc import Iterator
from dataclasses import dataclass

from git_teddy.hooks._git import git, git_bytes, is_null, ref_prefix

REFUSED = 10  # the exit status that tells the shell block the reasons were printed
BINARY_SNIFF = 8000  # a NUL byte in the first this many bytes: binary, not scanned


@dataclass(frozen=True)
class Pushed:
    local_ref: str
    local_sha: str
    remote_ref: str
    remote_sha: str


@dataclass(frozen=True)
class Secret:
    ref: str
    path: str
    line: int
    kind: str


def parse_updates(text: str) -> list[Pushed]:
    updates = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4:
            updates.append(Pushed(*parts))
    return updates


def kind_of(update: Pushed, prefix: str) -> str | None:
    """ "branch", "snapshot" or None (not a session ref) for the ref being pushed."""
    for ref in (update.remote_ref, update.local_ref):
        if ref.startswith(f"refs/heads/{prefix}"):
            return "branch"
        if ref.startswith(f"refs/{prefix}snapshots/"):
            return "snapshot"
    return None


def new_commits(update: Pushed, remote: str) -> list[str]:
    exclude = [f"--remotes={remote}"] if remote else []
    if not is_null(update.remote_sha) and _exists(update.remote_sha):
        exclude.append(update.remote_sha)
    commits: list[str] = git("rev-list", update.local_sha, "--not", *exclude).split()
    return commits


def _exists(sha: str) -> bool:
    return bool(git("rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}", check=False).strip())


def changed_blobs(commits: list[str]) -> dict[str, str]:
    """blob -> a path it was at, for the files these commits add or change against each
    parent (a root commit: all its files)."""
    if not commits:
        return {}
    args = ["diff-tree", "--stdin", "-r", "-m", "--root", "--no-renames", "--no-commit-id", "-z"]
    fields = git(*args, input="\n".join(commits) + "\n").split("\0")
    blobs: dict[str, str] = {}
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.split()
        if len(parts) == 5 and parts[4] != "D" and parts[1] != "160000":  # no submodules
            blobs.setdefault(parts[3], path)
    return blobs


def read_blobs(blobs: list[str]) -> Iterator[tuple[str, bytes]]:
    out = git_bytes("cat-file", "--batch", input="".join(f"{b}\n" for b in blobs).encode())
    at = 0
    for blob in blobs:
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        yield blob, out[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1


def scan(ref: str, blobs: dict[str, str]) -> list[Secret]:
    from git_teddy.redact import find_secrets

    secrets = []
    for blob, content in read_blobs(sorted(blobs)):
        if b"\0" in content[:BINARY_SNIFF]:
            continue
        for finding in find_secrets(content.decode("utf-8", errors="replace")):
            secrets.append(Secret(ref, blobs[blob], finding.line, finding.kind))
    return sorted(secrets, key=lambda s: (s.path, s.line))


def check(updates: list[Pushed], remote: str, prefix: str) -> list[Secret]:
    secrets: list[Secret] = []
    for update in updates:
        kind = kind_of(update, prefix)
        if kind is None or is_null(update.local_sha) or update.local_sha == update.remote_sha:
            continue  # not a session ref, a deletion, or nothing new
        commits = new_commits(update, remote) if kind == "branch" else [update.local_sha]
        secrets.extend(scan(update.local_ref, changed_blobs(commits)))
    return secrets


def report(secrets: list[Secret]) -> None:
    for s in secrets:
        print(f"error: {s.ref}: {s.path}:{s.line} contains a secret ({s.kind})", file=sys.stderr)
    print(
        "hint: git teddy redacts the secrets it writes; this one got in another way.\n"
        "hint: remove it from the session (rewrite the commit that added it), or push with"
        " --no-verify if it is not a secret",
        file=sys.stderr,
    )


def main(args: list[str]) -> int:
    remote = args[0] if args else ""
    try:
        secrets = check(parse_updates(sys.stdin.read()), remote, ref_prefix())
    except Exception as exc:  # fail closed: see the module docstring
        print(f"error: git-teddy pre-push hook failed: {exc!r}", file=sys.stderr)
        print(
            "hint: the session refs were not checked for secrets, so they were not pushed;\n"
            "hint: push with --no-verify to skip the check",
            file=sys.stderr,
        )
        return REFUSED
    if secrets:
        report(secrets)
        return REFUSED
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
