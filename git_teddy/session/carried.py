"""What a push or fetch of sessions carries besides their refs: the project files a push
shares that the remote had not seen, and, in a partial clone, the sessions' own contents a
fetch brings at once.

A push sends session commits, keep commits, snapshot commits and the trees and file
contents those snapshots hold, nothing else of the project: a snapshot's parents are
snapshots only (gitstore.snapshot), so the user's unpublished commits stay here. A session
of the old shape (a base snapshot with HEAD as its parent) still carries that HEAD's history,
and its count says so.
"""

import re
from collections.abc import Sequence

from git_teddy.gitstore import promisor
from git_teddy.gitstore.changes import new_blob_count, remote_tracking_ids
from git_teddy.session.refnames import fetched_prefix, incoming_prefix
from git_teddy.session.workspace import Workspace

# `git push --porcelain`'s line for an updated ref: `<flag>\t<from>:<to>\t<old>..<new>`
# (`...` when forced); a new ref says `[new ...]` and has no old id; one the remote had
# already is flagged `=`, and what it had is what `<from>` names here.
_UPDATED = re.compile(r"^.\t[^\t]+\t([0-9a-f]{4,64})\.\.\.?[0-9a-f]{4,64}", re.MULTILINE)
_UP_TO_DATE = re.compile(r"^=\t([^\t:]+):", re.MULTILINE)
# A ref the push made or moved there (fast-forward, forced, new): `<flag>\t<from>:<to>\t...`
_SENT = re.compile(r"^[ +*]\t([^\t:]+):", re.MULTILINE)


def unseen_files(ws: Workspace, remote: str, sessions: Sequence[str], porcelain: str) -> int:
    """How many file contents the snapshots of `sessions` hold that `remote` had not seen
    before a push whose `--porcelain` output is `porcelain`, as far as this repository
    knows: not in its remote-tracking branches of `remote`, nor in what the pushed refs
    held there before. Only the sessions whose keep ref the push sent are read: one the
    remote had already keeps there every snapshot it names (a push that sent nothing reads
    nothing and starts no git process)."""
    sent = set(_SENT.findall(porcelain))
    moved = [s for s in sessions if ws.store.keep_ref(s) in sent]
    tips = sorted({sha for session in moved for sha in ws.store.snapshots(session)})
    if not tips:
        return 0
    had = [*_UPDATED.findall(porcelain), *_UP_TO_DATE.findall(porcelain)]
    known = [*remote_tracking_ids(remote, ws.repo.cwd), *had]
    return new_blob_count(tips, known, ws.repo.cwd)


def unseen_files_line(count: int, remote: str) -> str:
    """What `git teddy push` says of the project files it shared."""
    return f"shared {count} project file(s) {remote} had not seen (the contents of snapshots)"


def bring_session_blobs(ws: Workspace, remote: str) -> None:
    """In a partial clone, fetch the blobs of `remote`'s sessions just fetched (their
    branches and keep commits: turn files, logs, snapshot lists) in one request, so reading
    them needs no network later. The files their snapshots hold stay lazy, as the project's
    own do. A remote that refuses leaves them to be fetched as they are read."""
    cwd, prefix = ws.repo.cwd, ws.store.prefix
    if remote not in promisor.promisor_remotes(cwd):
        return
    branches = ws.repo.list_refs(fetched_prefix(remote, prefix)).values()
    keeps = ws.repo.list_refs(incoming_prefix(prefix, remote)).values()
    missing = promisor.missing_objects([*branches], cwd)
    missing += promisor.missing_objects([*keeps], cwd, walk=False)
    promisor.fetch_objects(remote, missing, cwd)
