"""The per-turn cache of the session log: what `session.md` needs from one turn folder, read
and parsed (`TurnFiles`), kept by the folder's tree id, in memory for one command and in
`teddy/log-cache/<tree>.json` for the next ones (gitstore.layout). A tree id is a content
hash, so an entry is never stale: a session commit reads and parses only the turn folders it
changed, whatever the session's length (docs/architecture.md, the session log step). Like
every derived cache it can be removed at will, and a file that cannot be read or written
costs speed, never a wrong log."""

import json
import os
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from git_teddy.artifacts.sessionlog.build import TurnFiles, agent_version
from git_teddy.artifacts.turn_record import TurnRecord
from git_teddy.errors import TeddyError
from git_teddy.gitstore.layout import Layout

FORMAT = 1  # bumped when an entry's shape changes: older entries are then read as missing


class TurnCache:
    """Turn folders by tree id; `None` for a folder that is not a turn teddy wrote."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.known: dict[str, TurnFiles | None] = {}

    def turn(self, tree: str, read: Callable[[], TurnFiles | None]) -> TurnFiles | None:
        """The folder `tree`'s turn: from memory, else from its cache file, else `read()`
        (then stored in both)."""
        if tree in self.known:
            return self.known[tree]
        found = self._load(tree)
        if found is None:
            turn = read()
            self._store(tree, turn)
        else:
            (turn,) = found
        self.known[tree] = turn
        return turn

    def _load(self, tree: str) -> tuple[TurnFiles | None] | None:
        try:
            entry = json.loads(self.layout.log_cache(tree).read_text("utf-8"))
            if entry["format"] != FORMAT:
                return None
            return (from_json(entry["turn"]),)
        except (OSError, ValueError, ValidationError, KeyError, TypeError):
            return None  # none yet, or damaged: read the folder again

    def _store(self, tree: str, turn: TurnFiles | None) -> None:
        path = self.layout.log_cache(tree)
        text = json.dumps({"format": FORMAT, "turn": to_json(turn)}, separators=(",", ":"))
        try:
            self.layout.shared.make_folders(path.parent)
            part = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            part.write_text(text, encoding="utf-8")
            self.layout.shared.adjust(part)
            part.replace(path)  # whole: a killed writer leaves no half entry
        except (OSError, TeddyError):  # TeddyError: a file where its folder should be
            return  # an unwritable derived folder costs speed next time, nothing else


def to_json(turn: TurnFiles | None) -> dict[str, Any] | None:
    """A turn as its cache entry keeps it: the system prompt only as its version."""
    if turn is None:
        return None
    return {
        "name": turn.name,
        "record": turn.record.model_dump(mode="json"),
        "plan": turn.plan.model_dump(mode="json") if turn.plan else None,
        "report": turn.report.model_dump(mode="json") if turn.report else None,
        "user_prompt": turn.user_prompt,
        "prompt_version": turn.prompt_version or agent_version(turn.system_prompt),
        "problems": list(turn.problems),
    }


def from_json(data: dict[str, Any] | None) -> TurnFiles | None:
    if data is None:
        return None
    from git_teddy.artifacts.plan.models import Plan  # a turn's: not needed by `new`
    from git_teddy.artifacts.report import ExecutionReport

    plan, report = data["plan"], data["report"]
    return TurnFiles(
        name=str(data["name"]),
        record=TurnRecord.model_validate(data["record"]),
        plan=Plan.model_validate(plan) if plan is not None else None,
        report=ExecutionReport.model_validate(report) if report is not None else None,
        user_prompt=_text(data["user_prompt"]),
        prompt_version=_text(data["prompt_version"]),
        problems=[_checked(p) for p in data["problems"]],
    )


def _text(value: object) -> str | None:
    return None if value is None else _checked(value)


def _checked(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("a damaged cache entry")  # read as missing
    return value
