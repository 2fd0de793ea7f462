"""Which agent plans the next turn (pure). INVOKE hands the next turn to another agent and
pushes the invoker on a stack; CONCLUDE pops it, returning control with the conclusion's
resources and message. The stack is recorded in each turn's turn.yaml."""

from dataclasses import dataclass, field

from git_teddy.artifacts.report import ExecutionReport
from git_teddy.planning.agents import normalize_agent

DEFAULT_AGENT = "pathfinder"


@dataclass(frozen=True)
class Handoff:
    agent: str
    stack: list[str] = field(default_factory=list)  # invokers waiting, the oldest first
    resources: list[str] = field(default_factory=list)  # handed over into the context
    message: str | None = None  # what the handing agent said, for the next prompt
    source: str | None = None  # the agent that handed over


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def next_handoff(
    requested: str | None,
    previous_agent: str | None,
    previous_stack: list[str],
    report: ExecutionReport | None,
) -> Handoff:
    """-a wins over everything; else an INVOKE or CONCLUDE of the previous turn decides;
    else the previous turn's agent goes on (pathfinder for a first turn)."""
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
        agent = normalize_agent(requested) if requested else target
        return Handoff(agent, stack, resources, message, current)
    agent = normalize_agent(requested) if requested else current
    return Handoff(agent, list(previous_stack))


def prompt_with_handoff(message: str, handoff: Handoff) -> str:
    """The user's message, followed by what the previous agent handed over."""
    if not handoff.message:
        return message
    note = f"Handoff from @{handoff.source}:\n{handoff.message}"
    return f"{message.rstrip()}\n\n{note}" if message.strip() else note
