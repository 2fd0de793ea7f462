"""pre-push: refuses to push session history that holds an unredacted secret.

Runs as `python -I -m git_teddy.hooks.pre_push REMOTE URL` with git's
`<local ref> <local sha> <remote ref> <remote sha>` lines on stdin, for a push that may
carry teddy's history (the shell block decides it without Python: a ref of teddy's
namespaces, or a new commit with a `Teddy-Phase` trailer or a snapshot's subject; an
ordinary push never starts Python). What is scanned: every commit a
pushed ref carries that the remote lacks (`git rev-list <local sha> --not <remote shas>
--remotes=<remote>`), its message and the blobs new to the remote (`git rev-list
--objects`), when that ref carries teddy's history:
- a session branch or keep ref (`refs/heads/<prefix>...`, `refs/<prefix>keep/...`), or a
  session branch pushed to
  where `git teddy push` puts it on a remote (`refs/<prefix>sessions/...`);
- or, under any other name or a tag, a session commit (its `Teddy-Session` and
  `Teddy-Phase` trailers) or a snapshot (its subject, SNAPSHOT_SUBJECTS). The user's own
  commits of an applied turn carry `Teddy-Session`, `Teddy-Turn` and `Teddy-Snapshot` but no
  `Teddy-Phase`: they are the project's history.
A snapshot's parents are snapshots only (its HEAD is a trailer), but one of the old shape
has the user's commits as parents: those the remote lacks travel with it and are scanned
too. What the remote already has is never flagged (a snapshot equal to a published
commit, a fixture token in the project's published history). Text is read as UTF-8,
UTF-16 with a byte-order mark, or NUL-interleaved ASCII (gitstore.secret_files.as_text).
Ordinary pushes of the project's own history are not this hook's business.

A plain `git push` (`--all`, `push.default=matching`) of session branches carries none of
their snapshot refs; the hook says so in one warning line with a hint, and lets the push
go on (the branches themselves are fine to share). `git teddy push` marks its own pushes,
and hands over the ids its `--allow-secret` lets through (ALLOW_SECRETS_ENV).

A crash fails closed: a security gate that opens whenever it breaks is no gate. The
message says how to get past it with the command that was used.
"""

import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from git_teddy.artifacts.push_secrets import SHORT, Secret, secrets_json
from git_teddy.gitstore.changes import (
    ALLOW_SECRETS_ENV,
    SECRETS_FILE_ENV,
    SESSION_PUSH_ENV,
    blobs_reachable,
    is_null_id,
    new_blobs,
    new_history,
    object_ids,
    read_blobs,
    remote_tracking_ids,
)
from git_teddy.hooks import ref_prefix
from git_teddy.session.refnames import (
    branches_prefix,
    keeps_prefix,
    remote_sessions_prefix,
)

REFUSED = 10  # the exit status that tells the shell block the reasons were printed
BLOBS_PER_READ = 256  # blobs read by one `git cat-file --batch`: memory stays bounded
# The subjects teddy gives snapshots: session/store.py (base snapshot, your files before),
# session/turns.py (state before), execute/runner.py (snapshot after). The shell block of
# the pre-push hook looks for the same subjects before it starts Python: keep both alike.
SNAPSHOT_SUBJECTS = (
    "teddy: base snapshot of session ",
    "teddy: state before turn ",
    "teddy: snapshot after turn ",
    "teddy: your files before ",
)
_SESSION_TRAILERS = (
    re.compile(r"^Teddy-Session: ", re.MULTILINE),
    re.compile(r"^Teddy-Phase: ", re.MULTILINE),
)


@dataclass(frozen=True)
class Pushed:
    local_ref: str
    local_sha: str
    remote_ref: str
    remote_sha: str


@dataclass(frozen=True)
class Commit:
    parents: list[str]
    message: str

    @property
    def is_teddys(self) -> bool:
        """A session commit or a snapshot, by its trailers or subject."""
        if self.message.startswith(SNAPSHOT_SUBJECTS):
            return True
        return all(trailer.search(self.message) for trailer in _SESSION_TRAILERS)


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
        if ref.startswith((branches_prefix(prefix), remote_sessions_prefix(prefix))):
            return "branch"
        if ref.startswith(keeps_prefix(prefix)):
            return "snapshot"
    return None


def known_ids(updates: Sequence[Pushed], remote: str) -> list[str]:
    """What the remote is known to have, as objects of this repository: the shas it reported
    for the pushed refs and its remote-tracking refs."""
    candidates = [u.remote_sha for u in updates if not is_null_id(u.remote_sha)]
    candidates += remote_tracking_ids(remote)
    present = object_ids(candidates) if candidates else []
    return sorted({sha for sha in present if sha})


def reachable(tip: str | None, history: dict[str, Commit]) -> set[str]:
    """The commits of `history` (those new to the remote) reachable from `tip`."""
    found: set[str] = set()
    stack = [tip] if tip in history else []
    while stack:
        sha = stack.pop()
        if sha not in found:
            found.add(sha)
            stack.extend(p for p in history[sha].parents if p in history)
    return found


def scan_text(ref: str, where: str, object_id: str, text: str | None) -> list[Secret]:
    from git_teddy.redact import find_secrets

    if text is None:
        return []
    return [Secret(ref, where, f.line, f.kind, object_id) for f in find_secrets(text)]


def scan_blobs(blobs: dict[str, tuple[str, str]]) -> list[Secret]:
    """blobs: blob -> (ref, path). A file's path is scanned as well as its content: a token in
    a file or folder name is pushed (and shown in every listing) like one in a file."""
    from git_teddy.gitstore.secret_files import as_text
    from git_teddy.redact import redact

    secrets = []
    for blob, (ref, path) in sorted(blobs.items()):
        shown = f"the name {redact(path)[0]}"  # the report must not print what it found
        secrets += scan_text(ref, shown, blob, path)
    ids = sorted(blobs)
    for start in range(0, len(ids), BLOBS_PER_READ):
        for blob, content in read_blobs(ids[start : start + BLOBS_PER_READ]):
            ref, path = blobs[blob]
            secrets += scan_text(ref, path, blob, as_text(content))
    return secrets


def check(updates: list[Pushed], remote: str, prefix: str) -> list[Secret]:
    pushed = [u for u in updates if not is_null_id(u.local_sha) and u.local_sha != u.remote_sha]
    if not pushed:
        return []
    known = known_ids(updates, remote)
    tips = object_ids([f"{u.local_sha}^{{commit}}" for u in pushed])
    history = {
        sha: Commit(parents, message)
        for sha, parents, message in new_history([t for t in tips if t], known)
    }
    secrets: list[Secret] = []
    messages: dict[str, str] = {}  # commit -> the ref it is reported under
    blobs: dict[str, tuple[str, str]] = {}
    for update, tip in zip(pushed, tips, strict=True):
        carried = reachable(tip, history)
        if kind_of(update, prefix) is None and not any(history[c].is_teddys for c in carried):
            continue  # the project's own history
        for sha in sorted(carried):
            messages.setdefault(sha, update.local_ref)
        for blob, path in new_blobs(update.local_sha, known).items():
            blobs.setdefault(blob, (update.local_ref, path))
        if tip != update.local_sha:  # a tag: its message too
            blobs.setdefault(update.local_sha, (update.local_ref, f"tag {update.local_ref}"))
    for sha, ref in sorted(messages.items()):
        where = f"commit {sha[:SHORT]} message"
        secrets += scan_text(ref, where, sha, history[sha].message)
    found = scan_blobs(blobs)
    # A blob the remote has in older history (not in the trees rev-list compares) is not sent
    # by this push, whatever it holds: the README promises to scan only what it lacks.
    has = blobs_reachable({s.object_id for s in found}, known)
    secrets += [s for s in found if s.object_id not in has]
    return sorted(secrets, key=lambda s: (s.ref, s.where, s.line))


def allowed_ids() -> list[str]:
    return [line.strip() for line in os.environ.get(ALLOW_SECRETS_ENV, "").splitlines() if line]


def report(secrets: list[Secret]) -> None:
    for s in secrets:
        print(f"error: {s.finding()}", file=sys.stderr)
    if SECRETS_FILE_ENV in os.environ:  # `git teddy push` reads them back as records
        with open(os.environ[SECRETS_FILE_ENV], "w", encoding="utf-8") as file:
            file.write(secrets_json(secrets))
    if SESSION_PUSH_ENV in os.environ:
        return  # `git teddy push` says what to do, with its own options
    ids = " ".join(f"--allow-secret {s.object_id[:SHORT]}" for s in secrets)
    print(
        "hint: if these are not secrets (test data), push the sessions with"
        f" `git teddy push {ids}`, or this push with `git push --no-verify`;\n"
        "hint: if one is, revoke it: session commits and snapshots cannot be rewritten,"
        " keep that session to yourself (`git teddy delete <session>` removes it)",
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


def crashed(exc: Exception) -> None:
    print(f"error: git-teddy pre-push hook failed: {exc!r}", file=sys.stderr)
    skip = (
        "remove the hook (`git teddy hooks uninstall pre-push`) to push unchecked"
        if SESSION_PUSH_ENV in os.environ
        else "push with `git push --no-verify` to skip the check"
    )
    print(
        "hint: what is pushed was not checked for secrets, so it was not pushed;\n"
        f"hint: reinstall the hook (`git teddy hooks install`) or {skip}",
        file=sys.stderr,
    )


def main(args: list[str]) -> int:
    remote = args[0] if args else ""
    try:
        updates, prefix = parse_updates(sys.stdin.read()), ref_prefix()
        if without_snapshots(updates, prefix):
            warn_without_snapshots()
        allowed = allowed_ids()
        secrets = [s for s in check(updates, remote, prefix) if not s.allowed_by(allowed)]
    except Exception as exc:  # fail closed: see the module docstring
        crashed(exc)
        return REFUSED
    if secrets:
        report(secrets)
        return REFUSED
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
