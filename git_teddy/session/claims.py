"""One writer per session: `plan` and `execute` claim the session before they snapshot, ask
a model or run anything, so two runs at once never record two plans for one turn or run
one plan's actions twice. The claim is `gitstore.locks.hold_claim` (released by the system
when its holder dies: a killed run never blocks the session)."""

import datetime
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from git_teddy.errors import TeddyError
from git_teddy.gitstore import locks
from git_teddy.session.store import SessionStore


@dataclass(frozen=True)
class SessionClaim:
    """A held session: `working_on` names the turn in the claim, for whoever finds it."""

    claim: locks.Claim
    command: str
    since: str
    worktree: str

    def working_on(self, turn: str) -> None:
        doing = f"git teddy {self.command} of turn {turn} in the worktree {self.worktree}"
        self.claim.say(f"{doing}, started {self.since}")


@contextmanager
def claim_session(store: SessionStore, session: str, command: str) -> Iterator[SessionClaim]:
    """Hold `session` for `command` (`plan`, `execute`) while the block runs; a TeddyError
    naming the process that holds it, the worktree it works in and since when, when another
    run does."""
    layout = store.repo.layout
    path = layout.session_claim(session)
    layout.shared.make_folders(path.parent)
    since = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    worktree = str(store.repo.toplevel)  # named to whoever finds the session held
    doing = f"git teddy {command} in the worktree {worktree}, started {since}"
    try:
        with locks.hold_claim(path, doing, layout.shared.adjust) as claim:
            yield SessionClaim(claim, command, since, worktree)
    except locks.ClaimHeld as held:
        raise _held(session, command, held) from None


def _held(session: str, command: str, held: locks.ClaimHeld) -> TeddyError:
    holder = held.holder
    if holder is None:  # it has only just taken the claim
        who, pid = "another git teddy process", ""
    else:
        doing = holder.doing or "git teddy process"
        who, pid = f"another {doing} (pid {holder.pid})", str(holder.pid)
    see = f" (`ps -p {pid}` shows it)" if pid else ""
    return TeddyError(
        f"{who} is working on session {session}, so this {command} did nothing",
        f"wait for it to finish{see}, then run `git teddy {command}` again; "
        "a killed run's claim goes with it, there is nothing to remove",
    )
