"""Learning cases from session logs (pure): puzzles from `[!error]` callouts and correction
examples from the user's interventions, with what a training pipeline filters on. Their
exports (jsonl, Markdown, one file per case) are in learn_export.py.
"""

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from git_teddy.artifacts.sessionlog.callouts import read_resolution, resolution
from git_teddy.artifacts.sessionlog.model import (
    Callout,
    Phase,
    SessionLog,
    call_target,
    call_type,
)
from git_teddy.artifacts.sessionlog.reading import (
    decisions_before,
    did,
    intervention,
    planned,
    ran_calls,
    turn_message,
)
from git_teddy.artifacts.sessionlog.render import inline_code

CaseType = Literal["puzzle", "correction"]
CASE_TYPES: tuple[str, ...] = ("puzzle", "correction")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class CaseMeta(_Model):
    """What a training pipeline filters on."""

    type: CaseType
    session: str
    turn: str
    agent: str
    model: str | None
    channel: str


class Case(_Model):
    metadata: CaseMeta
    title: str  # the phase's title: the task at hand
    request: str  # the user's message for the turn
    decisions: list[str]  # decisions taken before the failure or correction
    behaviour: str  # puzzle: what failed; correction: what the agent planned or did
    correction: str | None = None  # correction: the user's words
    expected: str | None = None  # how the failure was resolved, or the correct behaviour
    resolved_in: str | None = None  # puzzle: the turn that resolved it

    @property
    def name(self) -> str:
        """A file-name-safe id, unique within the cases of one log."""
        meta = self.metadata
        return re.sub(r"[^\w.-]", "_", f"{meta.session}-{meta.turn}-{meta.type}")


def learn_cases(log: SessionLog, types: tuple[str, ...] = CASE_TYPES) -> list[Case]:
    """The log's puzzles and corrections, in the order they happened."""
    cases: list[Case] = []
    for index, phase in enumerate(log.phases):
        for block in phase.blocks:
            if not isinstance(block, Callout):
                continue
            if block.kind == "error" and "puzzle" in types:
                cases.append(puzzle(log, index, block))
            elif block.kind == "user" and "correction" in types:
                found = correction(log, index, block)
                cases += [found] if found else []
    return cases


def _meta(log: SessionLog, phase: Phase, kind: CaseType) -> CaseMeta:
    return CaseMeta(
        type=kind,
        session=log.meta.session_id,
        turn=phase.turn,
        agent=phase.agent,
        model=phase.model,
        channel=phase.channel,
    )


def puzzle(log: SessionLog, index: int, error: Callout) -> Case:
    """Context (task, request, decisions so far), failure, and the expected behaviour: how
    it was resolved and what the resolving turn did."""
    phase = log.phases[index]
    turn, how = read_resolution(error)
    expected = None
    if turn is not None:
        fixer = log.phase(turn)
        expected = resolution(turn, how) + "."
        # Repaired within its own turn (an invalid reply): the plan that replaced it.
        shown = planned(fixer) if fixer is phase else did(fixer) if fixer else None
        expected += f"\n\n{shown}" if shown else ""
    return Case(
        metadata=_meta(log, phase, "puzzle"),
        title=phase.title,
        request=turn_message(phase),
        decisions=decisions_before(log, index, error),
        behaviour=error.body,
        expected=expected,
        resolved_in=turn,
    )


def correction(log: SessionLog, index: int, callout: Callout) -> Case | None:
    """A rejection with a reason or a reply to a question: what the agent planned, the
    user's words, and what was done instead (a rejection: the rest of the turn the user let
    run, else the next turn; a reply: the next turn, which the reply started)."""
    phase = log.phases[index]
    after = log.phases[index + 1] if index + 1 < len(log.phases) else None
    item = intervention(callout)
    if item.kind in ("message", "steering"):
        return None
    if item.kind == "rejection":
        behaviour = f"Planned {inline_code(item.call or '')}"
        expected = did(phase) if ran_calls(phase) else (did(after) if after else None)
    else:
        asked = [c for c in phase.tool_calls() if call_type(c) == "CHAT_WITH_USER"]
        behaviour = "Asked the user: " + (call_target(asked[0]) if asked else item.acted_on)
        expected = did(after) if after else None
    return Case(
        metadata=_meta(log, phase, "correction"),
        title=phase.title,
        request=turn_message(phase),
        decisions=decisions_before(log, index, callout),
        behaviour=behaviour,
        correction=item.words,
        expected=expected,
    )


def dedupe(cases: list[Case]) -> list[Case]:
    """Conversation branches share the turns before their branch point: one case each."""
    seen: set[str] = set()
    result = []
    for case in cases:
        key = case.model_dump_json()
        if key not in seen:
            seen.add(key)
            result.append(case)
    return result
