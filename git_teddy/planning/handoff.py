"""Which agent plans the next turn (pure). In order: the agent the user asked for (`-a`);
else the agent the previous turn handed to (INVOKE pushes the invoker on a stack, CONCLUDE
pops it and returns control with the conclusion's resources and message); else the previous
turn's agent goes on; a session's first turn goes to DEFAULT_AGENT. The stack is recorded
in each turn's turn.yaml."""

from dataclasses import dataclass, field

from git_teddy.artifacts.report import ExecutionReport
from git_teddy.planning.agents import normalize_agent

# The first turn's agent when the user names none. A first request is most often a change
# to make, and pathfinder is told never to change product code or tests: dev implements,
# reads and answers as well, and hands design to architect and defects to debugger
# (INVOKE). `-a pathfinder` is the way to explore a problem before anyone writes code.
DEFAULT_AGENT = "dev"


@dataclass(frozen=True)
class Handoff:
    agent: str
    stack: list[str] = field(default_factory=list)  # invokers waiting, the oldest first
    resources: list[str] = field(default_factory=list)  # handed over into the context
    message: str | None = None  # what the handing agent said, for the next prompt
    source: str | None = None  # the agent that handed over
    chosen_by: str = "the first turn's default"  # why `agent` plans, for the user and model
    fresh: bool = False  # an INVOKE: the agent starts on the handoff resources alone (5.7)


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def next_handoff(
    requested: str | None,
    previous_agent: str | None,
    previous_stack: list[str],
    report: ExecutionReport | None,
) -> Handoff:
    """-a wins over everything; else an INVOKE or CONCLUDE of the previous turn decides;
    else the previous turn's agent goes on (DEFAULT_AGENT for a first turn)."""
    current = normalize_agent(previous_agent) if previous_agent else DEFAULT_AGENT
    for log in report.action_logs if report else []:
        if log.status != "SUCCESS" or log.action_type not in ("INVOKE", "CONCLUDE"):
            continue
        resources = _strings(log.params.get("handoff_resources"))
        message = str(log.params.get("message") or "") or None
        if log.action_type == "INVOKE":
            target = normalize_agent(str(log.params.get("agent") or DEFAULT_AGENT))
            stack = [*previous_stack, current]
        elif previous_stack:
            target, stack = previous_stack[-1], previous_stack[:-1]
        else:
            continue  # a top-level CONCLUDE ends the work; nobody to return to
        agent, why = _requested_or(requested, target, f"@{current}'s {log.action_type}")
        fresh = log.action_type == "INVOKE"
        return Handoff(agent, stack, resources, message, current, why, fresh)
    why = "the previous turn's agent" if previous_agent else "the first turn's default"
    agent, why = _requested_or(requested, current, why)
    return Handoff(agent, list(previous_stack), chosen_by=why)


def _requested_or(requested: str | None, agent: str, why: str) -> tuple[str, str]:
    return (normalize_agent(requested), "-a") if requested else (agent, why)


def as_turn_replaced(
    handoff: Handoff, requested: str | None, agent: str, stack: list[str]
) -> Handoff:
    """A conversation branch's first turn plans as the turn it is an alternative to did
    (its agent and invokers), unless `-a` says otherwise; what was handed over stays."""
    chosen, why = _requested_or(requested, normalize_agent(agent), "the turn it replaces")
    return Handoff(
        chosen, list(stack), handoff.resources, handoff.message, handoff.source, why, handoff.fresh
    )


def prompt_with_handoff(message: str, handoff: Handoff) -> str:
    """The user's message, followed by what the previous agent handed over."""
    if not handoff.message:
        return message
    note = f"Handoff from @{handoff.source}:\n{handoff.message}"
    return f"{message.rstrip()}\n\n{note}" if message.strip() else note
