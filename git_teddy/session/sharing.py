"""`git teddy push` and `git teddy fetch`: sessions travel as their branches and keep ref
(session.keep: it carries every snapshot), nothing else, and only when asked. Each is one git
transfer however many sessions there are, and the work after it follows the sessions that
changed, not all of them (docs/architecture.md, "Sharing sessions").

On the remote, push puts session branches under `refs/teddy/sessions/<id>/<branch>`
(refnames.remote_sessions_prefix), outside refs/heads: a plain `git fetch` or clone of the
project never asks for them, however many sessions the team has. `teddy.pushAsBranches`
pushes them as branches instead (`refs/heads/teddy/...`, the layout before), for a forge's
web view. A push in the new layout retires the session's branches of the old one there
(those its new branches contain). Fetch reads both layouts into the same remote-tracking
branches.

Fetch is one `git fetch --atomic`: pushed session branches straight to their
remote-tracking refs, keep refs to `refs/teddy/incoming/<remote>/` and old-layout branches to
`refs/teddy/arriving/<remote>/heads/` (both kept, as remote-tracking refs are: a fetch with
nothing new writes nothing). git writes them all in one transaction once every object is in,
or none. Then one `git update-ref --stdin` transaction merges the keep refs that differ from
ours and places the old-layout branches; a fetch killed between the two leaves every ref
complete, and the next fetch finishes the work (it compares, it does not remember).

Session branches are ordinary branches here (`refs/heads/teddy/...`), so plain git carries
them too (`git push --all`, `push.default=matching`, a clone): without their keep refs,
which live outside refs/heads. `fetch` therefore checks the snapshots of every session whose
refs it changed (or that was named), however its branches came, and names the ones the
remote lacks as well.
"""

import re
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from git_teddy import faultpoint
from git_teddy.artifacts.folder import TURN_RECORD
from git_teddy.artifacts.push_secrets import SHORT, Secret, parse_secrets
from git_teddy.errors import ConcurrentUpdateError, TeddyError
from git_teddy.session import keep
from git_teddy.session.carried import bring_session_blobs, unseen_files
from git_teddy.session.refnames import (
    arriving_prefix,
    branches_prefix,
    fetched_prefix,
    group_session_refs,
    incoming_prefix,
    keep_ref,
    keeps_prefix,
    remote_sessions_prefix,
)
from git_teddy.session.remotes import Remote, resolve
from git_teddy.session.workspace import Workspace
from git_teddy.settings import PUSH_AS_BRANCHES


@dataclass(frozen=True)
class Transfer:
    remote: str  # as the user gave it (a name, URL or path)
    sessions: list[str]
    output: str
    # session -> snapshots it refers to that are still not in this repository (fetch)
    missing: dict[str, list[str]] = field(default_factory=dict)
    # push: the remote has session branches only, so its HEAD names a missing branch
    sessions_only: bool = False
    # fetch from a URL or path: the name its sessions are kept under (refs/remotes/<name>/)
    kept_as: str | None = None
    unseen_files: int = 0  # push: project files shared that the remote had not seen
    moved: bool = False  # fetch: it moved refs here (keep refs merged, branches placed)


# ---- push ----------------------------------------------------------------------------------


def push_sessions(
    ws: Workspace, remote: str | None, sessions: list[str], allowed: Sequence[str] = ()
) -> Transfer:
    """Push the named sessions (default: every local session): branches (under
    refs/teddy/sessions/ there, or as branches with teddy.pushAsBranches) and keep refs,
    in one `git push`.
    `allowed`: the pre-push hook's findings to let through (blob or commit ids, paths)."""
    store, prefix = ws.store, ws.store.prefix
    target = resolve(ws, remote)
    local = ws.repo.ref_listing(branches_prefix(prefix).rstrip("/"))
    grouped = group_session_refs(local, prefix, ())  # local branches only
    chosen = [store.resolve_session(s) for s in sessions] or sorted(grouped)
    if not chosen:
        raise TeddyError("there are no local sessions to push", "start one with `git teddy new`")
    keeps = ws.repo.ref_listing(keeps_prefix(prefix).rstrip("/"))
    every = not sessions and sum(map(len, grouped.values())) == len(local)
    refspecs = _push_refspecs(ws, chosen, keeps, every)
    with tempfile.TemporaryDirectory(prefix="teddy-push-") as folder:
        refused = Path(folder) / "secrets.json"
        pushed = ws.repo.push_refs(target.given, refspecs, allowed, refused)
        found = parse_secrets(refused.read_text("utf-8")) if refused.exists() else []
    output = pushed.stdout + pushed.stderr
    if not pushed.ok:
        raise _push_failed(target.given, sessions, allowed, output, found)
    heads = _remote_heads(ws, target)
    if heads is not None and not ws.settings.flag(PUSH_AS_BRANCHES):
        output += _retire_old_branches(ws, target.given, chosen, local, heads)
    only = heads is not None and all(ref.startswith(branches_prefix(prefix)) for ref in heads)
    unseen = unseen_files(ws, target.name, chosen, pushed.stdout)
    return Transfer(target.given, chosen, output, sessions_only=only, unseen_files=unseen)


def _push_refspecs(
    ws: Workspace, chosen: list[str], keeps: Mapping[str, str], every: bool
) -> list[str]:
    """Two patterns when every local session goes and the namespaces hold nothing else
    (the command line stays short at any team size); else each session's own."""
    prefix = ws.store.prefix
    ours, kept = branches_prefix(prefix), keeps_prefix(prefix)
    there = ours if ws.settings.flag(PUSH_AS_BRANCHES) else remote_sessions_prefix(prefix)
    keep_sessions = {ref.removeprefix(kept) for ref in keeps}
    if every and keep_sessions <= set(chosen):
        return [f"{ours}*:{there}*", *([f"{kept}*:{kept}*"] if keeps else [])]
    refspecs = [f"{ours}{session}/*:{there}{session}/*" for session in chosen]
    return refspecs + [f"{kept}{s}:{kept}{s}" for s in chosen if s in keep_sessions]


def _push_failed(
    remote: str, sessions: Sequence[str], allowed: Sequence[str], output: str, found: list[Secret]
) -> TeddyError:
    if found:
        return _secrets_refused(remote, sessions, allowed, found)
    if "[rejected]" in output or "non-fast-forward" in output or "fetch first" in output:
        return TeddyError(
            f"{remote} has turns of these sessions that you do not have; nothing was overwritten",
            f"run `git teddy fetch {shlex.quote(remote)}`, then go on from their latest turn "
            "(it shows in `git teddy log`) or keep yours on a branch: "
            "`git teddy branch <turn> -m ...`",
        )
    return TeddyError(
        f"git push to {remote} failed:\n{output.strip()}",
        "check the remote's URL and your access to it",
    )


def _remote_heads(ws: Workspace, target: Remote) -> dict[str, str] | None:
    """The remote's branches after the push (None: it would not say; the push went
    through, so what needs them waits for the next push)."""
    try:
        return ws.repo.remote_heads(target.given)
    except TeddyError:
        return None


def _retire_old_branches(
    ws: Workspace,
    remote: str,
    sessions: list[str],
    local: Mapping[str, str],
    heads: Mapping[str, str],
) -> str:
    """Once a session is on `remote` in the new layout, its branches of the layout before
    (refs/heads/teddy/..., which every plain fetch of the project would bring) are deleted
    there: each only when what we just pushed holds all its turns, and only if it still is
    what we saw (an atomic push with leases). What git said, or a note when it refused."""
    old_prefix = branches_prefix(ws.store.prefix)
    pushed = set(sessions)
    retired = {}
    for ref, there in heads.items():
        ours = local.get(ref)
        session = ref.removeprefix(old_prefix).split("/")[0]
        if ours is None or session not in pushed or not ref.startswith(old_prefix):
            continue
        if ws.repo.object_exists(there) and ws.repo.descends_from(ours, there):
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


def _secrets_refused(
    remote: str, sessions: Sequence[str], allowed: Sequence[str], found: list[Secret]
) -> TeddyError:
    ids = dict.fromkeys([*allowed, *(secret.object_id[:SHORT] for secret in found)])
    words = [remote, *sessions, *(w for i in ids for w in ("--allow-secret", i))]
    again = "git teddy push " + shlex.join(words)
    lines = "\n".join(secret.finding() for secret in found)
    return TeddyError(
        f"the pre-push hook found secrets; nothing was pushed to {remote}:\n{lines}",
        f"if they are not secrets (test data, examples), push them anyway: `{again}`;\n"
        "if one is, revoke it: session commits and snapshots cannot be rewritten, so keep the"
        " session to yourself (`git teddy delete <session>` removes it)",
    )


# ---- fetch ---------------------------------------------------------------------------------

RefMoves = dict[str, tuple[str | None, str | None]]  # ref -> (new id, id it must hold)
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_RECORDED = re.compile(rb"^(?:base_snapshot|snapshot): '?([0-9a-f]{40,64})'?$", re.MULTILINE)
_ATTEMPTS = 5  # transactions lost to another writer of the same refs, before giving up


@dataclass(frozen=True)
class _Places:
    """Where one remote's sessions are kept here."""

    tracked: str  # refs/remotes/<name>/<prefix>: the session branches
    arriving: str  # refs/<prefix>arriving/<name>/heads/: its old-layout branches
    incoming: str  # refs/<prefix>incoming/<name>/: its keep refs
    local: str  # refs/heads/<prefix>: our own branches
    keeps: str  # refs/<prefix>keep/: our keep refs

    @classmethod
    def of(cls, prefix: str, name: str) -> "_Places":
        return cls(
            fetched_prefix(name, prefix),
            arriving_prefix(prefix, name, "heads"),
            incoming_prefix(prefix, name),
            branches_prefix(prefix),
            keeps_prefix(prefix),
        )

    def listing(self, ws: Workspace) -> dict[str, str]:
        bases = (self.tracked, self.arriving, self.incoming, self.local, self.keeps)
        return ws.repo.ref_listing(*(base.rstrip("/") for base in bases))

    def session_of(self, ref: str) -> str | None:
        for base in (self.tracked, self.arriving, self.incoming, self.local, self.keeps):
            if ref.startswith(base):
                return ref.removeprefix(base).split("/")[0]
        return None


def fetch_sessions(ws: Workspace, remote: str | None, sessions: Sequence[str] = ()) -> Transfer:
    """Bring a remote's sessions (default: all; else those full ids) in with one `git fetch`:
    branches of both layouts under refs/remotes/<name>/, keep refs merged into ours."""
    prefix = ws.store.prefix
    target = resolve(ws, remote)
    for session in sessions:
        _check_session_id(session)
    places = _Places.of(prefix, target.name)
    if not target.named:  # before the transfer: its refs are never there unread
        ws.repo.remember_remote(target.name)
    fetched = ws.repo.fetch_refs(target.given, _fetch_refspecs(prefix, places, sessions))
    if not fetched.ok:
        raise TeddyError(
            f"git fetch from {target.given} failed; nothing was written:\n{fetched.stderr.strip()}",
            "check the remote's URL and your access to it",
        )
    faultpoint.reached("fetch.transferred")
    bring_session_blobs(ws, target.name)  # a partial clone: session contents now, not one by one
    refs, moves = _settle(ws, places)
    _check_brought(target, places, refs, sessions)
    changed = {places.session_of(ref) or "" for ref in moves} | _unkept(places, refs)
    missing = _missing(ws, places, refs, changed | set(sessions))
    output = fetched.stdout + fetched.stderr
    kept_as = None if target.named else target.name
    new = _new(places, refs, moves)
    return Transfer(target.given, new, output, missing, kept_as=kept_as, moved=bool(moves))


def _check_brought(
    target: Remote, places: _Places, refs: Mapping[str, str], sessions: Sequence[str]
) -> None:
    known = {places.session_of(ref) for ref in refs}
    if absent := [s for s in sessions if s not in known]:
        raise TeddyError(
            f"{target.given} has no session {', '.join(absent)}",
            f"give full session ids; `git teddy fetch {shlex.quote(target.given)}` brings "
            "every session",
        )


def _new(places: _Places, refs: Mapping[str, str], moves: RefMoves) -> list[str]:
    """Sessions this fetch brought that were not here: their keep ref or remote-tracking
    branch made now, and no branch of ours."""
    made = {places.session_of(ref) or "" for ref, (_, old) in moves.items() if old is None}
    ours = {places.session_of(ref) for ref in refs if ref.startswith(places.local)}
    return sorted(made - ours - {""})


def _unkept(places: _Places, refs: Mapping[str, str]) -> set[str]:
    """Sessions with branches here (ours, or this remote's) and no keep ref: their branches
    came by plain git, so their snapshots may be missing (checked on every fetch)."""
    kept = {ref.removeprefix(places.keeps) for ref in refs if ref.startswith(places.keeps)}
    branches = (places.tracked, places.local)
    return {s for ref in refs if ref.startswith(branches) and (s := places.session_of(ref))} - kept


def _check_session_id(session: str) -> None:
    if not _SESSION_ID.match(session):
        raise TeddyError(
            f"{session!r} is not a session id",
            "give full session ids, as `git teddy list` shows them",
        )


def _fetch_refspecs(prefix: str, places: _Places, sessions: Sequence[str]) -> list[str]:
    """Pushed branches to their remote-tracking refs, old-layout ones to arriving/ (placed
    after) and keep refs to incoming/ (merged after), of `sessions` or of every session.
    Every pattern ends in `*`, so a layout or a keep ref the remote lacks fails nothing."""
    names = [f"{s}/" for s in sessions] or [""]
    refspecs = []
    for session in names:
        refspecs.append(f"+{remote_sessions_prefix(prefix)}{session}*:{places.tracked}{session}*")
        refspecs.append(f"+{branches_prefix(prefix)}{session}*:{places.arriving}{session}*")
    for session in [s.rstrip("/") for s in names]:
        refspecs.append(f"+{keeps_prefix(prefix)}{session}*:{places.incoming}{session}*")
    return refspecs


def _settle(ws: Workspace, places: _Places) -> tuple[dict[str, str], RefMoves]:
    """Merge the keep refs and place the old-layout branches the fetch brought, in one
    transaction (retried when another process moved one of them meanwhile): the refs as
    they are then, and what moved."""
    for attempt in range(_ATTEMPTS):
        refs = places.listing(ws)
        moves: RefMoves = {**_keep_merges(ws, places, refs), **_placements(ws, places, refs)}
        try:
            ws.repo.update_refs(moves, "teddy fetch")
        except ConcurrentUpdateError:
            if attempt == _ATTEMPTS - 1:
                raise
            continue
        return refs | {ref: new for ref, (new, _) in moves.items() if new}, moves
    raise AssertionError("unreachable")


def _keep_merges(ws: Workspace, places: _Places, refs: Mapping[str, str]) -> RefMoves:
    """keep ref -> (new, old) for each incoming keep ref ours does not keep all of yet."""
    updates: RefMoves = {}
    for ref, theirs in refs.items():
        if not ref.startswith(places.incoming):
            continue
        session = ref.removeprefix(places.incoming)
        ours_ref = keep_ref(ws.store.prefix, session)
        ours = refs.get(ours_ref)
        if ours != theirs and (new := keep.merged(ws.repo, session, ours, theirs)):
            updates[ours_ref] = (new, ours)
    return updates


def _placements(ws: Workspace, places: _Places, refs: Mapping[str, str]) -> RefMoves:
    """remote-tracking ref -> (new, old) for each old-layout branch that arrived and is
    newer than what is there: a branch the remote holds in both layouts takes the one that
    has the other's turns; when they diverged, the one git teddy pushed (already there)."""
    updates: RefMoves = {}
    for ref, tip in refs.items():
        if not ref.startswith(places.arriving):
            continue
        target = places.tracked + ref.removeprefix(places.arriving)
        there = refs.get(target)
        if there is None or (there != tip and ws.repo.descends_from(tip, there)):
            updates[target] = (tip, there)
    return updates


def _missing(
    ws: Workspace, places: _Places, refs: Mapping[str, str], sessions: set[str]
) -> dict[str, list[str]]:
    """session -> the snapshots its branches here name that this repository lacks, for
    `sessions` alone: one `git log` of their branches, one read of their turn records and
    one look-up of the ids, however many sessions there are."""
    tips: dict[str, set[str]] = {}
    for ref, tip in refs.items():
        session = places.session_of(ref)
        if session in sessions and ref.startswith((places.tracked, places.local)):
            tips.setdefault(session, set()).add(tip)
    named = _referenced(ws, tips)
    absent = ws.repo.missing_objects({sha for shas in named.values() for sha in shas})
    return {s: sorted(shas & absent) for s, shas in sorted(named.items()) if shas & absent}


def _referenced(ws: Workspace, tips: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """session -> every snapshot its branches name: its base and each turn's result (the
    Teddy-Snapshot trailers), each turn's base and result (its turn.yaml at each tip)."""
    rows = ws.repo.log_trailers(
        {t for ts in tips.values() for t in ts}, ["Teddy-Session", "Teddy-Turn", "Teddy-Snapshot"]
    )
    named: dict[str, set[str]] = {session: set() for session in tips}
    turns: dict[str, set[str]] = {session: set() for session in tips}
    for row in rows:
        session = row.get("Teddy-Session", "")
        if session in named:
            named[session].update(v for v in [row.get("Teddy-Snapshot")] if v)
            turns[session].update(v for v in [row.get("Teddy-Turn")] if v)
    specs = {
        f"{tip}:{turn}/{TURN_RECORD}": session
        for session, session_tips in tips.items()
        for tip in session_tips
        for turn in turns[session]
    }
    for spec, data in ws.repo.read_paths(list(specs)).items():
        named[specs[spec]].update(m.decode() for m in _RECORDED.findall(data))
    return named
