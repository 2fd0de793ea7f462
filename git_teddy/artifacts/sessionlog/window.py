"""The session history a resumed session's first turn is shown (pure): the log's phases up
to the resume point, whole while they fit the token budget; when they do not, a sliding
window keeps the most recent phases whole and shortens older ones to their heading and
their `[!decision]` callouts, which are always kept."""

from collections.abc import Callable

from git_teddy.artifacts.sessionlog.model import Phase, SessionLog
from git_teddy.artifacts.sessionlog.render import render_phase


def resume_history(log: SessionLog, budget: int, count: Callable[[str], int]) -> str:
    phases = phases_until(log, log.meta.resume_point)
    whole = [render_phase(phase) for phase in phases]
    short = [render_phase(decisions_only(phase)) for phase in phases]
    used = sum(count(text) for text in short)  # the floor: every decision
    first_whole = len(phases)
    for index in reversed(range(len(phases))):
        extra = count(whole[index]) - count(short[index])
        if used + extra > budget:
            break
        used += extra
        first_whole = index
    point = log.meta.resume_point or (phases[-1].turn if phases else "the start")
    head = f"# Session {log.meta.session_id}: its log up to turn {point}, where it resumes"
    if first_whole > 0:
        head += (
            f"\n\nTo fit the context window, the {first_whole} oldest phase(s) are shortened "
            "to their decisions; the rest are whole."
        )
    return "\n\n".join([head, *short[:first_whole], *whole[first_whole:]]) + "\n"


def phases_until(log: SessionLog, turn: str | None) -> list[Phase]:
    """The phases up to and including `turn` (all of them if it is not logged)."""
    names = [phase.turn for phase in log.phases]
    end = names.index(turn) + 1 if turn in names else len(names)
    return log.phases[:end]


def decisions_only(phase: Phase) -> Phase:
    return phase.model_copy(update={"blocks": phase.callouts("decision")})
