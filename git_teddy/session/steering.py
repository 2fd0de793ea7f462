"""Recording the user's steering (add, drop, undo, restore, branch) in a session branch's
`steering.yaml`, which session.md shows as `[!user]` callouts (artifacts/sessionlog/steering.py):
the file a steering command's session commit writes beside its own."""

import contextlib
import shlex

from git_teddy.artifacts.folder import STEERING
from git_teddy.artifacts.names import is_turn_name, turn_depth
from git_teddy.artifacts.sessionlog.steering import Steering, dump_steering, parse_steering
from git_teddy.errors import ConcurrentUpdateError
from git_teddy.session.store import SessionStore
from git_teddy.session.workspace import Workspace


def typed(*words: str) -> str:
    """The command as the user could have typed it: `git teddy add 'a b.txt'`."""
    return "git teddy " + shlex.join(words)


def steering_file(
    store: SessionStore,
    session: str,
    branch: str,
    command: str,
    did: str,
    before: str | None = None,
) -> dict[str, bytes]:
    """`steering.yaml` of `branch` with one more entry: `command` did `did`, after the
    branch's last turn (none: before its first), or the last before the turn `before`."""
    tip = store.repo.read_ref(store.branch_ref(session, branch)) or store.branches(session)[branch]
    tree = store.repo.read_commit(tip).tree
    turns = [n for n in store.repo.folder_ids(tree) if is_turn_name(n) and n != before]
    after = max(turns, key=lambda name: (turn_depth(name), name)) if turns else None
    entries = parse_steering(store.repo.read_file(tree, STEERING))
    time = store.now().isoformat(timespec="seconds")
    entries.append(Steering(command=command, did=did, after=after, time=time))
    return {STEERING: dump_steering(entries).encode()}


def record_branch(
    ws: Workspace, session: str, branch: str, turn: str, original: str, message: str
) -> None:
    """A `branch` in the new branch's log: placed before its first turn `turn` (planned
    already), as an alternative to `original`. A commit that races another is left out."""
    store = ws.store
    command = typed("branch", original, "-m", message)
    did = f"started conversation branch {branch}, an alternative to turn {original}"
    files = steering_file(store, session, branch, command, did, before=turn)
    trailers = {"Teddy-Session": session, "Teddy-Phase": "branch"}
    with contextlib.suppress(ConcurrentUpdateError):
        store.commit_files(session, branch, files, f"teddy: branch {branch}", trailers)
