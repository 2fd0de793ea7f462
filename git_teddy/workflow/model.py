"""The workflow markup of docs/workflows.md as data, and its renderer (pure).

A workflow is frontmatter (`type: workflow`, name, source_session, agents, channel, created)
and one `## <step> @agent #channel` heading per step, whose list items are fields:
`- flow: inputs → outputs`, `- check: `cmd``, `- gate: ...`, `- when: ...`,
`- on_failure: <step>`, `- invoke: @agent [[session]]`; other lines describe the step.
"""

from pydantic import BaseModel, ConfigDict, Field

from git_teddy.artifacts import frontmatter
from git_teddy.artifacts.sessionlog.render import inline_code

ARROW = "→"
NONE = "none"  # an empty side of a flow
FIELDS = ("flow", "check", "gate", "when", "on_failure", "invoke")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Port(_Model):
    """One input or output of a step: a file, URL, query..., with an optional type."""

    name: str
    type: str | None = None


class Step(_Model):
    title: str
    agent: str  # name@version, or name
    channel: str
    description: str = ""  # free Markdown, never a `- ` or `#` line
    inputs: list[Port] = Field(default_factory=list)
    outputs: list[Port] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list)  # commands that verify the step
    gates: list[str] = Field(default_factory=list)  # where a human must approve
    when: str | None = None  # the step runs only when this holds
    on_failure: str | None = None  # the title of the step that repairs a failure
    invokes: list[str] = Field(default_factory=list)  # `@agent` or `@agent [[session]]`


class WorkflowMeta(_Model):
    type: str = "workflow"
    name: str
    source_session: str | None = None
    agents: list[str]
    channel: str
    created: str | None = None
    description: str | None = None


class Workflow(_Model):
    meta: WorkflowMeta
    title: str | None = None  # the `# ` line
    description: str = ""  # text before the first step
    steps: list[Step]


def render_workflow(workflow: Workflow) -> str:
    meta = workflow.meta.model_dump(exclude_none=True)
    parts = [f"# {workflow.title}"] if workflow.title else []
    parts += [workflow.description] if workflow.description else []
    parts += [render_step(step) for step in workflow.steps]
    return frontmatter.render(meta, "\n" + "\n\n".join(parts) + "\n")


def render_step(step: Step) -> str:
    heading = f"## {step.title} @{step.agent} #{step.channel}"
    fields = [f"- flow: {render_ports(step.inputs)} {ARROW} {render_ports(step.outputs)}"]
    fields += [f"- check: {inline_code(check)}" for check in step.checks]
    fields += [f"- gate: {gate}" for gate in step.gates]
    fields += [f"- when: {step.when}"] if step.when else []
    fields += [f"- on_failure: {step.on_failure}"] if step.on_failure else []
    fields += [f"- invoke: {invoke}" for invoke in step.invokes]
    parts = [heading, *([step.description] if step.description else []), "\n".join(fields)]
    return "\n\n".join(parts)


def render_ports(ports: list[Port]) -> str:
    if not ports:
        return NONE
    return ", ".join(inline_code(p.name) + (f": {p.type}" if p.type else "") for p in ports)
