"""The user's steering of a session branch (pure): `add`, `drop`, `undo`, `restore` and
`branch` between turns, kept in the branch's `steering.yaml` (one entry each, oldest first)
and shown in session.md as `[!user]` callouts: the command the user typed, quoted, then what
it did. Each entry is placed in the phase of the turn it came after (`after`); entries from
before the first turn open the first phase."""

from collections.abc import Sequence

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from git_teddy.artifacts.sessionlog.callouts import steered, user_callout
from git_teddy.artifacts.sessionlog.model import Block, Phase
from git_teddy.artifacts.yamlio import Unreadable, load_yaml


class Steering(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    command: str  # as the user typed it: `git teddy add src/auth.py`
    did: str  # what it did: `added src/auth.py to the session's context`
    after: str | None = None  # the branch's last turn when it was done; None: before any
    time: str = ""


def parse_steering(text: str | bytes | None) -> list[Steering]:
    """The entries of a `steering.yaml`; damaged entries (or a damaged file) are left out:
    the log is still built from the turns."""
    if not text:
        return []
    try:
        data = load_yaml(text)
    except (Unreadable, ValueError, yaml.YAMLError):
        return []
    entries: list[Steering] = []
    for item in data if isinstance(data, list) else []:
        try:
            entries.append(Steering.model_validate(item))
        except ValidationError:
            continue
    return entries


def dump_steering(entries: Sequence[Steering]) -> str:
    data = [entry.model_dump(exclude_defaults=True) for entry in entries]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def with_steering(phases: list[Phase], entries: Sequence[Steering]) -> list[Phase]:
    """`phases` with each entry's `[!user]` callout: at the end of the phase of the turn it
    came after, at the start of the first phase when it came before any turn (or after a
    turn the branch no longer has)."""
    if not phases or not entries:
        return phases
    turns = {phase.turn for phase in phases}
    before: list[Block] = []
    after: dict[str, list[Block]] = {}
    for entry in entries:
        callout = user_callout(entry.command, steered(entry.did))
        if entry.after in turns:
            after.setdefault(entry.after, []).append(callout)
        else:
            before.append(callout)
    out = []
    for index, phase in enumerate(phases):
        blocks = [*(before if index == 0 else []), *phase.blocks, *after.get(phase.turn, [])]
        out.append(phase.model_copy(update={"blocks": blocks}) if blocks != phase.blocks else phase)
    return out
