"""pre-push: refuses to push session refs that hold an unredacted secret.

Runs as `python -I -m git_teddy.hooks.pre_push REMOTE URL` with git's
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

A plain `git push` (`--all`, `push.default=matching`) of session branches carries none of
their snapshot refs; the hook says so in one warning line with a hint, and lets the push
go on (the branches themselves are fine to share). `git teddy push` marks its own pushes.

A crash fails closed: the hook only gets here when session refs are pushed (the shell block
lets every other push through without starting Python), and a security gate that opens
whenever it breaks is no gate. The message says so and names `--no-verify`.
"""

import os
import sys
from dataclasses import dataclass

from git_teddy.gitstore.changes import (
    SESSION_PUSH_ENV,
    changed_blobs,
    commit_id,
    commits_not_in,
    is_null_id,
    read_blobs,
)
from git_teddy.hooks import ref_prefix
from git_teddy.session.refnames import branches_prefix, snapshots_prefix

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
        if ref.startswith(branches_prefix(prefix)):
            return "branch"
        if ref.startswith(snapshots_prefix(prefix)):
            return "snapshot"
    return None


def new_commits(update: Pushed, remote: str) -> list[str]:
    """The commits of a pushed session branch that the remote does not have yet."""
    known = []
    if not is_null_id(update.remote_sha) and commit_id(update.remote_sha):
        known.append(update.remote_sha)
    return commits_not_in(update.local_sha, remote, known)


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
        if kind is None or is_null_id(update.local_sha) or update.local_sha == update.remote_sha:
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


def without_snapshots(updates: list[Pushed], prefix: str) -> bool:
    """A plain `git push` of session branches, with no snapshot refs (see the docstring)."""
    kinds = {kind_of(u, prefix) for u in updates if not is_null_id(u.local_sha)}
    return "branch" in kinds and "snapshot" not in kinds and SESSION_PUSH_ENV not in os.environ


def warn_without_snapshots() -> None:
    print(
        "warning: git push carries session branches without their snapshots (restore and"
        " blame need them)\nhint: share sessions with `git teddy push`",
        file=sys.stderr,
    )


def main(args: list[str]) -> int:
    remote = args[0] if args else ""
    try:
        updates, prefix = parse_updates(sys.stdin.read()), ref_prefix()
        if without_snapshots(updates, prefix):
            warn_without_snapshots()
        secrets = check(updates, remote, prefix)
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
