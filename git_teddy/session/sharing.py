"""`git teddy push` and `git teddy fetch`: sessions travel as their branches and keep ref
(session.keep: it carries every snapshot), nothing else, and only when asked.

On the remote, push puts session branches under `refs/teddy/sessions/<id>/<branch>`
(refnames.remote_sessions_prefix), outside refs/heads: a plain `git fetch` or clone of the
project never asks for them, however many sessions the team has. `teddy.pushAsBranches`
pushes them as branches instead (`refs/heads/teddy/...`, the layout before), for a forge's
web view. A push in the new layout retires the session's branches of the old one there
(those its new branches contain). Fetch reads both layouts into the same remote-tracking
branches.

Session branches are ordinary branches here (`refs/heads/teddy/...`), so plain git carries
them too (`git push --all`, `push.default=matching`, a clone): without their keep refs,
which live outside refs/heads. `fetch` therefore brings the snapshots of every session
branch it can see, however the branch came, and names the ones the remote lacks as well.
"""

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field

from git_teddy.artifacts.folder import TURN_RECORD
from git_teddy.artifacts.turn_record import base_snapshot
from git_teddy.errors import TeddyError
from git_teddy.session import keep
from git_teddy.session.carried import bring_session_blobs, unseen_files
from git_teddy.session.refnames import (
    arriving_prefix,
    branch_ref,
    branches_prefix,
    fetched_prefix,
    incoming_prefix,
    is_session_branch,
    keep_ref,
    keeps_prefix,
    remote_sessions_prefix,
    snapshots_prefix,
)
from git_teddy.session.workspace import Workspace
from git_teddy.settings import PUSH_AS_BRANCHES, REMOTE


@dataclass(frozen=True)
class Transfer:
    remote: str
    sessions: list[str]
    output: str
    # session -> snapshots it refers to that are still not in this repository (fetch)
    missing: dict[str, list[str]] = field(default_factory=dict)
    # push: the remote has session branches only, so its HEAD names a missing branch
    sessions_only: bool = False
    unseen_files: int = 0  # push: project files shared that the remote had not seen


def _remote(ws: Workspace, remote: str | None) -> str:
    name = remote or ws.settings.text(REMOTE)
    if name not in ws.repo.remote_names():
        raise TeddyError(
            f"no remote named {name!r}",
            "add one with `git remote add <name> <url>`, or name it: `git teddy push <remote>`",
        )
    return name


def push_sessions(
    ws: Workspace, remote: str | None, sessions: list[str], allowed: Sequence[str] = ()
) -> Transfer:
    """Push the named sessions (default: every local session): branches (under
    refs/teddy/sessions/ there, or as branches with teddy.pushAsBranches) and keep refs
    (old-layout snapshot refs are folded into the keep ref first). `allowed`: the pre-push
    hook's findings to let through (blob or commit ids, paths)."""
    store, prefix = ws.store, ws.store.prefix
    name = _remote(ws, remote)
    chosen = [store.resolve_session(s) for s in sessions] or store.local_session_ids()
    if not chosen:
        raise TeddyError("there are no local sessions to push", "start one with `git teddy new`")
    refspecs = []
    as_branches = ws.settings.flag(PUSH_AS_BRANCHES)
    for session in chosen:
        if keep.legacy_refs(ws.repo, prefix, session):
            store.keep_snapshots(session, [])
        ref = branch_ref(prefix, session, "*")
        there = ref if as_branches else f"{remote_sessions_prefix(prefix)}{session}/*"
        refspecs.append(f"{ref}:{there}")
        if ws.repo.read_ref(kept := keep_ref(prefix, session)):
            refspecs.append(f"{kept}:{kept}")
    pushed = ws.repo.push_refs(name, refspecs, allowed)
    output = pushed.stdout + pushed.stderr
    if pushed.ok and not as_branches:
        output += _retire_old_branches(ws, name, chosen)
    if not pushed.ok:
        if findings := _secret_findings(output):
            raise _secrets_refused(name, sessions, allowed, findings)
        if "[rejected]" in output or "non-fast-forward" in output or "fetch first" in output:
            raise TeddyError(
                f"{name} has turns of these sessions that you do not have; nothing was overwritten",
                f"run `git teddy fetch {shlex.quote(name)}`, then go on from their latest turn "
                "(it shows in "
                "`git teddy log`) or keep yours on a branch: `git teddy branch <turn> -m ...`",
            )
        raise TeddyError(
            f"git push to {name} failed:\n{output.strip()}",
            "check the remote's URL and your access to it",
        )
    unseen = unseen_files(ws, name, chosen, pushed.stdout)
    return Transfer(name, chosen, output, {}, _sessions_only(ws, name), unseen)


def _retire_old_branches(ws: Workspace, remote: str, sessions: list[str]) -> str:
    """Once a session is on `remote` in the new layout, its branches of the layout before
    (refs/heads/teddy/..., which every plain fetch of the project would bring) are deleted
    there: each only when what we just pushed holds all its turns, and only if it still is
    what we saw (an atomic push with leases). What git said, or a note when it refused."""
    old_prefix = branches_prefix(ws.store.prefix)
    try:
        seen = ws.repo.remote_refs(remote, f"{old_prefix}*")
    except TeddyError:  # the push went through: asking again is for the next push
        return f"note: could not list {remote}'s branches; old-layout ones stay for now\n"
    retired = {}
    for session in sessions:  # the local branches just pushed, named as they were there
        for ref, pushed in ws.repo.list_refs(f"{old_prefix}{session}/").items():
            there = seen.get(ref)
            if there and ws.repo.object_exists(there) and ws.repo.descends_from(pushed, there):
                retired[ref] = there
    if not retired:
        return ""
    deleted = ws.repo.delete_remote_refs(remote, retired)
    if deleted.ok:
        return deleted.stdout
    return (
        f"note: {remote} still has these sessions as branches too (they moved meanwhile);"
        " the next `git teddy push` tries again\n"
    )


# The pre-push hook's finding lines: `error: <ref>: <where>:<line> contains a secret (<kind>)
# [<id>]` (hooks/pre_push.py report).
_FINDING = re.compile(r"^error: (.+ contains a secret \(.+\) \[([0-9a-f]+)\])$", re.MULTILINE)


def _secret_findings(output: str) -> list[tuple[str, str]]:
    """(finding, object id) for each secret the pre-push hook refused."""
    return [(m[1], m[2]) for m in _FINDING.finditer(output)]


def _secrets_refused(
    remote: str, sessions: list[str], allowed: Sequence[str], findings: list[tuple[str, str]]
) -> TeddyError:
    ids = dict.fromkeys([*allowed, *(object_id for _, object_id in findings)])
    again = " ".join(["git teddy push", remote, *sessions, *(f"--allow-secret {i}" for i in ids)])
    lines = "\n".join(finding for finding, _ in findings)
    return TeddyError(
        f"the pre-push hook found secrets; nothing was pushed to {remote}:\n{lines}",
        f"if they are not secrets (test data, examples), push them anyway: `{again}`;\n"
        "if one is, revoke it: session commits and snapshots cannot be rewritten, so keep the"
        " session to yourself (`git teddy delete <session>` removes it)",
    )


def _sessions_only(ws: Workspace, remote: str) -> bool:
    """Whether `remote` has no branch but session branches (an empty remote that got only
    sessions): a clone of it warns and checks out nothing, as after pushing any lone side
    branch to an empty remote. git lets that happen, so push does too, and says so. Known
    remote-tracking branches of the project answer without asking the remote."""
    sessions = branches_prefix(ws.store.prefix)
    tracked = fetched_prefix(remote, "")
    for ref in ws.repo.list_refs(tracked):
        if not is_session_branch(ref, ws.store.prefix) and ref != f"{tracked}HEAD":
            return False
    return all(ref.startswith(sessions) for ref in ws.repo.remote_heads(remote))


def fetch_sessions(ws: Workspace, remote: str | None, sessions: Sequence[str] = ()) -> Transfer:
    """Bring a remote's sessions (default: all; else those full ids) in: branches of both
    layouts under refs/remotes/<remote>/, keep refs merged into ours (session.keep)."""
    store, prefix = ws.store, ws.store.prefix
    name = _remote(ws, remote)
    before = set(store.session_ids())
    _clear_arriving(ws, name)  # left by a fetch that stopped half-way
    fetched = ws.repo.fetch_refs(name, _fetch_refspecs(prefix, name, sessions))
    if not fetched.ok:
        _clear_arriving(ws, name)
        raise TeddyError(
            f"git fetch from {name} failed:\n{fetched.stderr.strip()}",
            "check the remote's URL and your access to it",
        )
    _place_branches(ws, name)
    bring_session_blobs(ws, name)  # a partial clone: session contents now, not one by one
    _merge_keeps(ws, name, sessions)
    now = store.session_ids()
    if absent := [s for s in sessions if s not in now]:
        raise TeddyError(
            f"{name} has no session {', '.join(absent)}",
            f"give full session ids; `git teddy fetch {shlex.quote(name)}` brings every session",
        )
    checked = sessions or now
    missing = {s: found for s in checked if (found := missing_snapshots(ws, s))}
    return Transfer(name, sorted(set(now) - before), fetched.stdout + fetched.stderr, missing)


# The two layouts a remote may hold session branches in, by their name under arriving/:
# pushed by `git teddy push` (outside refs/heads), and as branches (teddy.pushAsBranches,
# an older git-teddy, or a plain `git push` of a session branch).
_LAYOUTS = ("sessions", "heads")


def _remote_prefix(prefix: str, layout: str) -> str:
    return remote_sessions_prefix(prefix) if layout == "sessions" else branches_prefix(prefix)


def _fetch_refspecs(prefix: str, remote: str, sessions: Sequence[str]) -> list[str]:
    """Branches of both layouts (to arriving/, placed after), keep refs (to incoming/,
    merged after) and old-layout snapshot refs of `sessions`, or of every session. Every
    pattern ends in `*`, so a layout or a keep ref the remote lacks fails nothing."""
    incoming = incoming_prefix(prefix, remote)
    names = [f"{s}/" for s in sessions] or [""]
    refspecs = []
    for session in names:
        for layout in _LAYOUTS:
            there, here = _remote_prefix(prefix, layout), arriving_prefix(prefix, remote, layout)
            refspecs.append(f"+{there}{session}*:{here}{session}*")
        refspecs.append(
            f"{snapshots_prefix(prefix)}{session}*:{snapshots_prefix(prefix)}{session}*"
        )
    for session in [s.rstrip("/") for s in names]:
        refspecs.append(f"+{keeps_prefix(prefix)}{session}*:{incoming}{session}*")
    return refspecs


def _place_branches(ws: Workspace, remote: str) -> None:
    """Move the arrived branches to refs/remotes/<remote>/<prefix><id>/<branch>, where
    list, show, log, restore and branch read fetched sessions. A branch the remote holds in
    both layouts takes the one that has the other's turns (a plain `git push` of a branch
    after `git teddy push`, or the reverse); when they diverged, the one git teddy pushed."""
    repo, prefix = ws.repo, ws.store.prefix
    arrived = {layout: _arrived(ws, remote, layout) for layout in _LAYOUTS}
    pushed, plain = arrived["sessions"], arrived["heads"]
    chosen = dict(pushed)
    for path, tip in plain.items():
        other = chosen.get(path)
        if other is None or (other != tip and repo.descends_from(tip, other)):
            chosen[path] = tip
    target = fetched_prefix(remote, prefix)
    current = repo.list_refs(target) if chosen else {}
    moves = {
        f"{target}{path}": tip
        for path, tip in sorted(chosen.items())
        if current.get(f"{target}{path}") != tip
    }
    repo.set_fetched_refs(moves, f"teddy fetch {remote}")
    _clear_arriving(ws, remote)


def _arrived(ws: Workspace, remote: str, layout: str) -> dict[str, str]:
    """`<id>/<branch>` -> tip of the branches that arrived in one layout."""
    base = arriving_prefix(ws.store.prefix, remote, layout)
    return {ref.removeprefix(base): sha for ref, sha in ws.repo.list_refs(base).items()}


def _clear_arriving(ws: Workspace, remote: str) -> None:
    for layout in _LAYOUTS:
        if refs := ws.repo.list_refs(arriving_prefix(ws.store.prefix, remote, layout)):
            ws.repo.delete_refs(refs)


def _merge_keeps(ws: Workspace, remote: str, sessions: Sequence[str]) -> None:
    """Merge the fetched keep refs into ours, fold old-layout snapshot refs in, and remove
    the incoming refs (also those of other sessions a pattern matched)."""
    store, repo, prefix = ws.store, ws.repo, ws.store.prefix
    incoming = repo.list_refs(incoming_prefix(prefix, remote))
    base = incoming_prefix(prefix, remote)
    for ref, sha in incoming.items():
        session = ref.removeprefix(base)
        if not sessions or session in sessions:
            keep.merge_incoming(repo, prefix, session, sha)
    for session in sessions or _legacy_sessions(ws):
        if keep.legacy_refs(repo, prefix, session):
            store.keep_snapshots(session, [])
    if incoming:
        repo.delete_refs(incoming)


def _legacy_sessions(ws: Workspace) -> list[str]:
    """Sessions that still have old-layout snapshot refs here."""
    base = snapshots_prefix(ws.store.prefix)
    return sorted({ref.removeprefix(base).split("/")[0] for ref in ws.repo.list_refs(base)})


def referenced_snapshots(ws: Workspace, session: str) -> set[str]:
    """Every snapshot a session's branches name: its base, each turn's base (turn.yaml) and
    result (the report's Teddy-Snapshot trailer): what restore, blame and show read."""
    store, repo = ws.store, ws.repo
    found = {store.summary(session).base_snapshot}
    for commit in store.turn_commits(session):
        found.add(commit.snapshot)
        tree = repo.read_commit(commit.commit).tree
        record = repo.read_file(tree, f"{commit.turn}/{TURN_RECORD}")
        found.add(base_snapshot(record))
    return {sha for sha in found if sha}


def missing_snapshots(ws: Workspace, session: str) -> list[str]:
    """The snapshots a session refers to that this repository does not have."""
    return sorted(s for s in referenced_snapshots(ws, session) if not ws.repo.object_exists(s))
