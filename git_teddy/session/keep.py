"""The keep ref of a session: one ref, `refs/<prefix>keep/<id>`, keeps every snapshot the
session refers to reachable, however many turns it has (a team remote holds thousands of
sessions: refs per session stay constant, see docs/architecture.md).

The ref points at a keep commit: its tree holds one file, `snapshots`, the ids it keeps one
a line in the order they were kept; its parents are the keep commit before it (none for the
first) and the snapshots it adds. Keeping a snapshot is one small commit and one
compare-and-swap of the ref, and the chain only ever grows, so pushing it is a fast-forward
like a session branch's (a diverged one is refused the same way). `git teddy fetch` brings a
remote's keep ref under `refs/<prefix>incoming/<remote>/<id>` (kept there, as a remote-tracking
ref is) and merges it here (`merged`): taken as is when ours is its ancestor, kept when it is
ours', else a keep commit with both as parents.
"""

from collections.abc import Iterable

from git_teddy.errors import ConcurrentUpdateError
from git_teddy.gitstore import GitRepo
from git_teddy.session.refnames import keep_ref

KEEP_SUBJECT = "teddy: keep snapshots of session "
LISTING = "snapshots"
KEEP_ATTEMPTS = 5  # each lost race means another process kept snapshots: progress


def kept(repo: GitRepo, keep_commit: str | None) -> list[str]:
    """The snapshots a keep commit keeps, in the order they were kept."""
    if keep_commit is None:
        return []
    data = repo.read_file(repo.read_commit(keep_commit).tree, LISTING) or b""
    return data.decode("ascii", "replace").split()


def snapshots(repo: GitRepo, keep_commit: str | None) -> list[str]:
    """Every snapshot a session keeps: its keep commit's."""
    return sorted(set(kept(repo, keep_commit)))


def keep(repo: GitRepo, prefix: str, session: str, shas: Iterable[str]) -> None:
    """Keep `shas` reachable from the session's keep ref (those already kept cost a read).
    Raises RefInTheWay when a ref of the user's blocks the keep ref's name (the store
    words it)."""
    wanted = list(dict.fromkeys(shas))
    ref = keep_ref(prefix, session)
    for attempt in range(KEEP_ATTEMPTS):
        tip = repo.read_ref(ref)
        listed = kept(repo, tip)
        known = set(listed)
        new = [s for s in wanted if s not in known]
        if new:
            commit = _keep_commit(repo, session, [tip] if tip else [], [*listed, *new], new)
            try:
                repo.update_ref(ref, commit, tip, "keep snapshot")
            except ConcurrentUpdateError:
                if attempt == KEEP_ATTEMPTS - 1:
                    raise
                continue  # another process kept snapshots meanwhile: build on its commit
        return


def _keep_commit(
    repo: GitRepo, session: str, keeps: list[str], listing: list[str], new: list[str]
) -> str:
    tree = repo.write_tree(None, {LISTING: "".join(f"{s}\n" for s in listing).encode()})
    message = f"{KEEP_SUBJECT}{session}\n\n{len(listing)} snapshot(s)\n"
    return repo.write_commit(tree, [*keeps, *new], message)


def merged(repo: GitRepo, session: str, ours: str | None, theirs: str) -> str | None:
    """What the session's keep ref (now `ours`) must point at to keep what a remote's keep
    commit `theirs` keeps too: `theirs` when ours is in its chain (or there is none), a new
    keep commit with both as parents when they diverged (written; the ref is the caller's
    to move, in its transaction), None when ours keeps everything already."""
    if ours is None:
        return theirs
    if ours == theirs or _descends(repo, ours, theirs):
        return None
    if _descends(repo, theirs, ours):
        return theirs
    listed = kept(repo, ours)
    known = set(listed)
    listing = [*listed, *(s for s in kept(repo, theirs) if s not in known)]
    return _keep_commit(repo, session, [ours, theirs], listing, [])


def _descends(repo: GitRepo, tip: str, ancestor: str) -> bool:
    """Whether keep commit `ancestor` is in the keep chain of `tip` (snapshots not walked:
    a keep commit's parents that are not keep commits are the snapshots it adds)."""
    seen, stack = set(), [tip]
    while stack:
        sha = stack.pop()
        if sha == ancestor:
            return True
        if sha in seen:
            continue
        seen.add(sha)
        for parent in repo.read_commit(sha).parents:
            if parent not in seen and _is_keep(repo, parent):
                stack.append(parent)
    return False


def _is_keep(repo: GitRepo, sha: str) -> bool:
    return repo.object_exists(sha) and repo.read_commit(sha).message.startswith(KEEP_SUBJECT)
