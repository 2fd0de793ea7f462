"""`git teddy delete`: remove whole sessions, as `git branch -D` removes a branch.

A session's branches (local, and fetched copies under refs/remotes/), its keep ref (and
what fetch keeps of it: the remotes' keep refs and old-layout
branches) and its local derived state (the current-branch marker, the placed
log, kept failed replies) go in one ref transaction. The objects stay until git's gc prunes
them, so the command prints every ref's last id: `git update-ref <ref> <id>` brings a
deletion back until then. States of the user's own files that restore, branch or execute
saved are named apart: they are the user's work, and deleting a session that holds some
asks for --force. The repository's idle scratch worktrees go too (they are shared by its
sessions, and may hold a copy of a deleted session's files); the next execute makes one.
"""

import shutil
from dataclasses import dataclass
from datetime import timedelta

from git_teddy.errors import TeddyError
from git_teddy.gitstore.worktree import remove_idle_worktrees
from git_teddy.session.refnames import (
    branches_prefix,
    fetched_prefix,
    keep_ref,
)
from git_teddy.session.store import SessionStore, is_saved_state


@dataclass(frozen=True)
class Doomed:
    """A session about to be deleted, and what goes with it."""

    session: str
    refs: dict[str, str]  # full ref name -> the id it holds now
    saved: list[str]  # snapshots of the user's own files that only this session keeps


def _session_refs(store: SessionStore, session: str) -> dict[str, str]:
    """Every ref of the session's, local and fetched (from the store's one listing)."""
    prefix, refs = store.prefix, store.refs()
    found = {
        **refs.under(f"{branches_prefix(prefix)}{session}/"),
    }
    for remote in store.repo.remotes():
        found.update(refs.under(f"{fetched_prefix(remote, prefix)}{session}/"))
    keep = keep_ref(prefix, session)
    if kept := refs.refs.get(keep):
        found[keep] = kept
    found.update(_fetch_state(store, session))
    return found


def _fetch_state(store: SessionStore, session: str) -> dict[str, str]:
    """What `git teddy fetch` keeps of the session per remote (the remote's keep ref, its
    old-layout branches): they keep its snapshots alive too."""
    found = {}
    for base in (f"refs/{store.prefix}incoming/", f"refs/{store.prefix}arriving/"):
        for name, sha in store.refs().under(base).items():  # the command's one listing
            parts = name.removeprefix(base).split("/")
            if session in parts[1:3]:  # <remote>/<id>, <remote>/heads/<id>/<branch>
                found[name] = sha
    return found


def _saved_states(store: SessionStore, session: str) -> list[str]:
    """Snapshots of the user's own files that hold something no other state has: not the
    same files as one of the session's own states, nor as HEAD."""
    repo = store.repo
    commits = {sha: repo.read_commit(sha) for sha in store.snapshots(session)}
    saved = {sha for sha, c in commits.items() if is_saved_state(c)}
    head = repo.head_commit()
    known = {c.tree for sha, c in commits.items() if sha not in saved}
    known |= {repo.read_commit(head).tree} if head else set()
    return sorted(sha for sha in saved if commits[sha].tree not in known)


def select_sessions(
    store: SessionStore, specs: list[str], older_than: timedelta | None
) -> list[Doomed]:
    """The sessions named by `specs` (ids or unique prefixes) or, with `older_than`, every
    session whose last commit is older than that."""
    if bool(specs) == (older_than is not None):
        raise TeddyError(
            "name the sessions to delete, or give --older-than, not both",
            "e.g. `git teddy delete 2026-11-26-fix-login` or `git teddy delete --older-than 90`",
        )
    if older_than is not None:
        cutoff = (store.now() - older_than).timestamp()
        chosen = [s for s in store.session_ids() if store.last_active(s) < cutoff]
    else:
        chosen = sorted({store.resolve_session(spec) for spec in specs})
    return [Doomed(s, _session_refs(store, s), _saved_states(store, s)) for s in chosen]


def refuse_losing_saved_states(doomed: list[Doomed]) -> None:
    """Without --force, a session holding the user's saved files is not deleted."""
    holding = [d for d in doomed if d.saved]
    if holding:
        named = "; ".join(f"{d.session}: {', '.join(s[:12] for s in d.saved)}" for d in holding)
        raise TeddyError(
            f"saved states of your own files would go with the session ({named}); "
            "nothing was deleted",
            "see one with `git show --stat <id>` or get it back with "
            "`git teddy restore -s <session> <id>`; run again with --force to delete them too",
        )


def delete_sessions(store: SessionStore, doomed: list[Doomed], pool_dir: str = "") -> None:
    """Remove the refs of every doomed session in one transaction, then their local state
    and the idle scratch worktrees (`pool_dir`: teddy.worktree.dir)."""
    refs = {name: sha for d in doomed for name, sha in d.refs.items()}
    if refs:
        store.repo.delete_refs(refs)
    layout = store.repo.layout
    for d in doomed:
        for folder in (layout.sessions / d.session, layout.failed_plans(d.session)):
            shutil.rmtree(folder, ignore_errors=True)
    remove_idle_worktrees(store.repo, pool_dir)
