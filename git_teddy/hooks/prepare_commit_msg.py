"""prepare-commit-msg: `Teddy-Session`, `Teddy-Turn` and `Teddy-Snapshot` trailers on a
commit whose staged changes contain content applied from a turn.

A staged path counts when its staged blob differs from HEAD's, equals the path's blob in a
turn's result snapshot (the `Teddy-Snapshot` of the turn's report commit) and differs from
the path's blob in the snapshot the turn started from (the result's parent): the turn wrote
it; or when teddy wrote that blob merging the turn's result with the user's edits (the
derived state's `applied-by/<blob>`, gitstore.layout). For each path the most recent such
turn counts; every turn counted is named (a commit of two turns' results names both), its
result snapshot beside it; `--if-exists addIfDifferent` keeps it idempotent. The session
records which commit took each turn's result at its next commit (session/landed.py).
Merges and squashes are skipped. An amend (`--amend`, `--amend --no-edit`) is counted
against HEAD's parent, so its trailers stay; `--amend -m MSG` cannot be told apart from a
plain `-m` (git passes no sign of the amend), so a new message written that way has none.
The shell block starts this side only when a staged blob is marked as applied (an empty
file named by it in gitstore.layout `applied_blobs`), for an amend, or when the marks are
not made yet: then this side makes them.
Runs as `python -I -m git_teddy.hooks.prepare_commit_msg MSG_FILE [SOURCE [SHA]]`; any failure
is a warning, never a failed commit.
"""

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from git_teddy.gitstore.changes import (
    add_trailers,
    commit_id,
    history_trailers,
    object_ids,
    staged_blobs,
    written_blobs,
)
from git_teddy.gitstore.layout import APPLIED_BLOBS, DERIVED_DIR, Layout
from git_teddy.gitstore.permissions import Shared
from git_teddy.gitstore.plumbing import list_refs, read_config, remote_names
from git_teddy.hooks import ref_prefix
from git_teddy.session.refnames import group_session_refs, session_ref_patterns

SKIPPED_SOURCES = {"merge", "squash"}  # git wrote the message from other commits
TRAILER_KEYS = ("Teddy-Session", "Teddy-Turn", "Teddy-Snapshot")
APPLIED_ENV = "TEDDY_HOOK_APPLIED"  # the applied marks' folder, as the shell block found it


@dataclass(frozen=True)
class Turn:
    session: str
    turn: str
    snapshot: str  # the project state the turn's execution produced
    time: int


def base_commit(source: str, sha: str) -> str:
    """What the commit's changes are counted against: HEAD, or HEAD's parent when HEAD is
    being amended (source `commit` with HEAD's id; `-c HEAD` looks the same and is counted
    so too). Empty for a first commit."""
    head = commit_id("HEAD")
    if source == "commit" and sha and head and commit_id(sha) == head:
        return commit_id("HEAD^")
    return head


def session_tips(prefix: str) -> list[str]:
    remotes = remote_names(None)
    refs = list_refs(None, *session_ref_patterns(prefix, remotes))
    sessions = group_session_refs(refs, prefix, remotes).values()
    return [sha for branches in sessions for sha in branches.values()]


def executed_turns(tips: list[str]) -> list[Turn]:
    """Every turn with a result snapshot, newest first."""
    turns: dict[str, Turn] = {}
    for time, values in history_trailers(tips):
        if all(values.get(k) for k in TRAILER_KEYS):
            snapshot = values["Teddy-Snapshot"]
            turns[snapshot] = Turn(values["Teddy-Session"], values["Teddy-Turn"], snapshot, time)
    return sorted(turns.values(), key=lambda t: (t.time, t.turn), reverse=True)


def applied_turns(
    staged: dict[str, str], turns: list[Turn], merged_from: dict[str, list[Turn]]
) -> list[Turn]:
    """Every turn that wrote one of the staged blobs, oldest first: for each path the most
    recent turn whose result holds the staged blob (and whose start did not), else the turns
    whose result, merged with the user's edits, gave it (`merged_from`, by blob)."""
    paths = [p for p in staged if "\n" not in p]
    if not paths:
        return []
    queries = [f"{t.snapshot}{rev}:{p}" for t in turns for p in paths for rev in ("", "^")]
    found = object_ids(queries) if queries else []
    pairs = iter(zip(found[0::2], found[1::2], strict=True))
    wrote: dict[str, Turn] = {}  # path -> the most recent turn that wrote it
    for turn in turns:
        for path in paths:
            result, before = next(pairs)
            if path not in wrote and result == staged[path] and before != staged[path]:
                wrote[path] = turn
    named = {t.snapshot: t for t in wrote.values()}
    for path in paths:
        if path not in wrote:
            named.update((t.snapshot, t) for t in merged_from.get(staged[path], []))
    return sorted(named.values(), key=lambda t: (t.time, t.session, t.turn))


def merged_results(staged: dict[str, str], turns: list[Turn]) -> dict[str, list[Turn]]:
    """The turns the derived state says each staged blob was merged from (gitstore.layout
    `note_applied_by`), among the turns the session branches know."""
    where = os.environ.get(APPLIED_ENV)
    if not where:
        return {}
    layout = Layout(Path(where).parent.parent, Shared())
    known = {t.snapshot: t for t in turns}
    found: dict[str, list[Turn]] = {}
    for blob in set(staged.values()):
        snapshots = [snapshot for _, _, snapshot in layout.applied_from(blob)]
        rows = [known[snapshot] for snapshot in snapshots if snapshot in known]
        if rows:
            found[blob] = rows
    return found


def turn_trailers(turns: list[Turn]) -> list[tuple[str, str]]:
    """`Teddy-Session`, then `Teddy-Turn` and `Teddy-Snapshot` of each of its turns (the
    snapshot names a turn of any session alone), for each session in turn."""
    trailers: list[tuple[str, str]] = []
    for session in dict.fromkeys(t.session for t in turns):
        trailers.append(("Teddy-Session", session))
        for turn in (t for t in turns if t.session == session):
            trailers += [("Teddy-Turn", turn.turn), ("Teddy-Snapshot", turn.snapshot)]
    return trailers


def seed_applied(turns: list[Turn]) -> None:
    """Make the applied marks the shell block checks (gitstore.layout `applied_blobs`) when
    they are not there yet: every blob a turn's result wrote, so the shell answers as this
    side would for every session known now; teddy marks what it applies later."""
    where = os.environ.get(APPLIED_ENV)
    if not where or os.path.exists(where):
        return
    path = Path(where)
    if path.parent.name != DERIVED_DIR or path.name != APPLIED_BLOBS:
        return  # not a path the installed block names
    config = read_config(None, "core")
    layout = Layout(path.parent.parent, Shared.from_config(config))
    merged = layout.applied_by.iterdir() if layout.applied_by.is_dir() else iter(())
    blobs = written_blobs([t.snapshot for t in turns]) | {p.name for p in merged}
    layout.seed_applied(sorted(blobs))


def run(args: list[str]) -> None:
    message_file, source, sha = (*args, "", "")[:3]
    if source in SKIPPED_SOURCES:
        return
    staged = staged_blobs(base_commit(source, sha))
    turns = executed_turns(session_tips(ref_prefix()))
    seed_applied(turns)
    found = applied_turns(staged, turns, merged_results(staged, turns))
    if found:
        add_trailers(message_file, turn_trailers(found))


def main(args: list[str]) -> int:
    try:
        run(args)
    except Exception as exc:  # a commit is never failed by this hook
        print(f"warning: git-teddy prepare-commit-msg hook failed: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
