"""`git teddy branch`: a conversation branch as an alternative to a turn. The user's files
go back to where that turn started (saved first), then a new plan is made on the same
context with a new message; the CLI tells the user in between."""

from dataclasses import dataclass

from git_teddy.artifacts.folder import TURN_RECORD
from git_teddy.planning.turn import PlannedTurn, plan_turn
from git_teddy.session.restore import Placed, place_snapshot
from git_teddy.session.store import TurnRef
from git_teddy.session.workspace import Workspace
from git_teddy.ui import UI


@dataclass(frozen=True)
class Branching:
    """The turn an alternative is made to, its files, and the user's files placed."""

    ref: TurnRef
    original: dict[str, bytes]  # the replaced turn's folder: its base and turn.context
    placed: Placed


def place_turn_base(ws: Workspace, ref: TurnRef, force: bool) -> Branching:
    """The user's files as `ref`'s turn found them (theirs saved first): the alternative
    starts where the original turn did."""
    original = ws.store.turn_files(ref)
    tip = ws.store.branches(ref.session)[ref.branch]
    record = ws.store.read_record(ref.session, ref.branch, tip, ref.turn)
    if record is None:
        path = f"{ref.turn}/{TURN_RECORD}"
        raise ws.store.damaged(ref.session, ref.branch, path, "it is missing", tip)
    label = f"branching from turn {ref.turn}"
    placed = place_snapshot(ws, ref.session, record.base_snapshot, label, force, "branch")
    return Branching(ref, original, placed)


def plan_alternative(
    ws: Workspace,
    branching: Branching,
    message: str,
    agent: str | None,
    reply: str | None,
    ui: UI,
) -> tuple[str, PlannedTurn]:
    """The new conversation branch's name and its first turn, planned on the replaced
    turn's context with `message`."""
    name = ws.store.create_branch(branching.ref)
    planned = plan_turn(
        ws,
        branching.ref.session,
        message,
        agent,
        reply_file_text=reply,
        ui=ui,
        alternative_to=branching.original,
    )
    return name, planned
