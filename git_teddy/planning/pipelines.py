"""Pipelines (spec 001): a turn planned by a chain of model calls instead of one.

A project defines a pipeline in `.teddy/pipelines/<name>.yaml`:

    description: Analyse, decide, then plan     # optional
    steps:
      - name: analysis                # letters, digits, `-`, `_`; unique in the pipeline
        agent: architect              # the system prompt of that agent, or
        prompt: |                     # an inline system prompt (exactly one of the two)
          You analyse the request and list the risks.
        model: gpt-4o-mini            # optional: replaces teddy.model for this step
      - name: plan
        agent: dev                    # the last step must produce the plan

Every step gets the turn's usual payload (memos, the user's message, the context) and then
`## 6. Previous Step: <name>` with the previous step's output (from the second step on),
and `## 7. Your Step: <name> (k of n)` telling it what to produce: its step's output for
the next step, or, for the last step, exactly one plan. Only the last step is re-prompted
with the plan's problems (as a single-model turn is). Everything each step was sent and
replied is kept in the turn folder (`pipeline_files`).

Parsing is pure: the caller reads the file from the turn's snapshot (`project_file(path)`,
as agents.py does). The runner calls models only through the Provider protocol.
"""

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, TypeVar

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails, PydanticCustomError

from git_teddy.artifacts.plan import Plan
from git_teddy.artifacts.plan.fences import fence_for
from git_teddy.errors import TeddyError
from git_teddy.llm import ChatMessage, Completion, Provider, provider_from_settings
from git_teddy.planning.agents import agent_prompt, normalize_agent
from git_teddy.planning.ask import Attempt, ask_for_plan
from git_teddy.planning.context import render_context_log
from git_teddy.settings import MODEL, Settings
from git_teddy.ui import UI

PIPELINES_DIR = ".teddy/pipelines"
PIPELINE_KEYS = ("description", "steps")
STEP_KEYS = ("name", "agent", "prompt", "model")
FORMAT_HINT = (
    "a pipeline has `steps:`, a list of steps with a `name` and an `agent` or an inline "
    "`prompt` (and an optional `model`), e.g. "
    "`steps: [{name: analysis, agent: architect}, {name: plan, agent: dev}]`"
)

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")  # used in file names: nothing else allowed
_STR = "tag:yaml.org,2002:str"
_Number = TypeVar("_Number", int, float)


class PipelineError(TeddyError):
    """A pipeline that cannot be used; `problems` is every (line, message) found."""

    def __init__(self, path: str, problems: list[tuple[int, str]], hint: str = FORMAT_HINT):
        self.path = path
        self.problems = sorted(problems)
        listed = "".join(f"\n  line {line}: {message}" for line, message in self.problems)
        super().__init__(f"{path} is not a valid pipeline:{listed}", hint)


def _text(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("empty", "is empty")
    return value


def _step_name(value: str) -> str:
    if not _NAME.fullmatch(value):
        raise PydanticCustomError("name", "names are letters, digits, `-` and `_`")
    return value


Text = Annotated[str, AfterValidator(_text)]


class PipelineStep(BaseModel):
    """One step of `.teddy/pipelines/NAME.yaml`; validated with strict types (a number or
    `null` is not text), every problem mapped back to its line by `parse_pipeline`."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, defer_build=True)

    name: Annotated[str, AfterValidator(_step_name)]
    agent: Text | None = None  # exactly one of agent and prompt is set
    prompt: Text | None = None
    model: Text | None = None  # None: teddy.model
    line: int = 0  # where the step starts in the file

    @model_validator(mode="after")
    def _agent_or_prompt(self) -> "PipelineStep":
        if (self.agent is None) == (self.prompt is None):
            raise PydanticCustomError("agent_or_prompt", "agent_or_prompt")
        return self

    @property
    def label(self) -> str:
        """`@architect` or `inline prompt`, for messages."""
        return f"@{self.agent}" if self.agent else "inline prompt"


class Pipeline(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, defer_build=True)

    name: str
    path: str
    source: str  # the YAML text as read: stored with the turn
    steps: Annotated[tuple[PipelineStep, ...], Field(min_length=1)]
    description: Text | None = None


# ---- finding and parsing ---------------------------------------------------------------------


def pipeline_path(name: str) -> str:
    return f"{PIPELINES_DIR}/{name}.yaml"


def pipeline_names(paths: Iterable[str]) -> list[str]:
    """The pipelines among project file paths (e.g. every file of the snapshot), sorted."""
    prefix = PIPELINES_DIR + "/"
    names = (p.removeprefix(prefix).removesuffix(".yaml") for p in paths if p.startswith(prefix))
    return sorted(n for n in names if "/" not in n and _NAME.fullmatch(n))


def load_pipeline(
    name: str, project_file: Callable[[str], bytes | None], present: Iterable[str] = ()
) -> Pipeline:
    """The pipeline `name`, read with `project_file(path)`. `present`: the project's paths
    (all of them, or those under .teddy/pipelines/), to list the choices when it is unknown."""
    wanted = name.removesuffix(".yaml")
    data = project_file(pipeline_path(wanted)) if _NAME.fullmatch(wanted) else None
    if data is None:
        names = pipeline_names(present)
        raise TeddyError(
            f"unknown pipeline `{name}`: "
            + (f"this project has {', '.join(names)}" if names else "this project has none"),
            f"a pipeline `{wanted}` is defined in {pipeline_path(wanted)}"
            if _NAME.fullmatch(wanted)
            else "pipeline names are letters, digits, `-` and `_`",
        )
    path = pipeline_path(wanted)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise PipelineError(path, [(1, f"not UTF-8 text ({error.reason})")]) from None
    return parse_pipeline(text, wanted, path)


def parse_pipeline(text: str, name: str, path: str | None = None) -> Pipeline:
    """Validate the YAML of a pipeline; every problem is reported at once, with its line.

    The YAML's nodes give the lines and what plain data loses (keys given twice, names used
    twice); the `Pipeline` model validates the rest, and each of its errors is said again
    for the file's author at the line of the value it is about."""
    path = path or pipeline_path(name)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)  # nodes keep their line numbers
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else 1
        said = ": ".join(part for part in (error.context, error.problem) if part)
        raise PipelineError(path, [(line, f"YAML syntax: {said or error}")]) from None
    except yaml.YAMLError as error:
        raise PipelineError(path, [(1, f"YAML syntax: {error}")]) from None
    if root is None:
        raise PipelineError(path, [(1, "the file is empty")])
    if not isinstance(root, yaml.MappingNode):
        raise PipelineError(path, [(_line(root), "a pipeline must be a mapping with `steps:`")])
    reader = _Reader()
    data = reader.pipeline(root)
    try:
        pipeline = Pipeline.model_validate({"name": name, "path": path, "source": text, **data})
    except ValidationError as error:
        reader.problems += [reader.said(found) for found in error.errors()]
    if reader.problems:
        raise PipelineError(path, reader.problems)
    steps = tuple(_normalized(step) for step in pipeline.steps)
    return pipeline.model_copy(update={"steps": steps})


def _normalized(step: PipelineStep) -> PipelineStep:
    agent = normalize_agent(step.agent) if step.agent else None  # `Code Reviewer`
    return step.model_copy(update={"agent": agent, "model": step.model and step.model.strip()})


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


_SAID = {"name": "said", "agent": "said"}  # a step whose problem is said already: valid


class _Reader:
    """The YAML nodes as plain data for the model, with the line of every value by its
    location (the `loc` of pydantic's errors), and the problems only the nodes show."""

    def __init__(self) -> None:
        self.lines: dict[tuple[str | int, ...], int] = {}
        self.names: dict[int, str] = {}  # a step's name as written, for messages
        self.problems: list[tuple[int, str]] = []

    def pipeline(self, root: yaml.MappingNode) -> dict[str, object]:
        self.lines[()] = _line(root)
        fields = self.mapping(root, "the pipeline", PIPELINE_KEYS, ())
        node = self.nodes.get("steps")
        fields["steps"] = (_SAID,)  # unless they can be read
        if node is None:
            self.problems.append((_line(root), "no `steps:`: a pipeline needs at least one step"))
            return fields
        if not isinstance(node, yaml.SequenceNode) or not node.value:
            self.problems.append(
                (_line(node), "`steps` must be a non-empty list (`- name: ...` lines)")
            )
            return fields
        fields["steps"] = tuple(self.steps(node))
        return fields

    def steps(self, node: yaml.SequenceNode) -> list[object]:
        steps: list[object] = []
        seen: set[str] = set()
        for index, item in enumerate(node.value):
            where = ("steps", index)
            self.lines[where] = _line(item)
            given = _given_name(item)
            if given is not None and given in seen:
                self.problems.append((_line(item), f"step name `{given}` is used twice"))
            seen.add(given or "")
            if not isinstance(item, yaml.MappingNode):
                self.problems.append(
                    (_line(item), f"step {index + 1} must be a mapping of `key: value` lines")
                )
                steps.append(_SAID)  # said already: not again
                continue
            if not item.value:
                self.problems.append((_line(item), f"step {index + 1} is empty"))
                steps.append(_SAID)
                continue
            fields = self.mapping(item, f"step {index + 1}", STEP_KEYS, where)
            if isinstance(fields.get("name"), str):
                self.names[index] = str(fields["name"])
            steps.append({**fields, "line": _line(item)})
        return steps

    nodes: dict[str, yaml.Node]

    def mapping(
        self, node: yaml.MappingNode, what: str, keys: tuple[str, ...], where: tuple[str | int, ...]
    ) -> dict[str, object]:
        """The values by key (text as str, anything else as its node, which the model
        refuses as not text); unknown and repeated keys are problems."""
        found: dict[str, object] = {}
        self.nodes = {}
        for key, value in node.value:
            word = key.value if isinstance(key, yaml.ScalarNode) else None
            if word not in keys:
                shown = f"`{word}`" if isinstance(word, str) else "this key"
                allowed = ", ".join(f"`{k}`" for k in keys)
                self.problems.append(
                    (_line(key), f"unknown key {shown} in {what} (allowed: {allowed})")
                )
            elif word in found:
                self.problems.append((_line(key), f"`{word}` is given twice in {what}"))
            else:
                text = isinstance(value, yaml.ScalarNode) and value.tag == _STR
                found[word] = str(value.value) if text else value
                self.nodes[word] = value
                self.lines[(*where, word)] = _line(value)
        return found

    def said(self, error: ErrorDetails) -> tuple[int, str]:
        """A pydantic error as the author of the file reads it: its line, what is wrong."""
        loc = tuple(error["loc"])
        line = self.lines.get(loc) or self.lines.get(loc[:2]) or self.lines[()]
        kind = error["type"]
        what = self.what(loc)
        if kind == "missing" and loc[-1] == "name":
            return line, f"step {int(loc[1]) + 1} has no `name`"
        if kind == "agent_or_prompt":
            return self.agent_or_prompt(loc)
        if kind == "empty":
            return line, f"{what} is empty"
        if kind == "name":
            return line, f"{self.label(loc)}: names are letters, digits, `-` and `_`"
        if kind.endswith("_type"):
            return line, f"{what} must be text (quote it if it looks like another type)"
        return line, f"{what}: {error['msg']}"

    def what(self, loc: tuple[str | int, ...]) -> str:
        if loc == ("description",):
            return "`description`"
        if len(loc) == 3 and loc[2] == "name":
            return f"the name of step {int(loc[1]) + 1}"
        if len(loc) == 3:
            return f"`{loc[2]}` of {self.label(loc)}"
        return "the pipeline"

    def label(self, loc: tuple[str | int, ...]) -> str:
        index = int(loc[1])
        name = self.names.get(index)
        return f"step `{name}`" if name else f"step {index + 1}"

    def agent_or_prompt(self, loc: tuple[str | int, ...]) -> tuple[int, str]:
        agent, prompt = (self.lines.get((*loc[:2], key)) for key in ("agent", "prompt"))
        label = self.label(loc)
        if agent is not None and prompt is not None:
            return max(agent, prompt), f"{label} has both `agent` and `prompt`: give one of them"
        return self.lines[loc[:2]], f"{label} needs an `agent` or an inline `prompt`"


def _given_name(node: yaml.Node) -> str | None:
    """The step's `name` if it is written as plain text, before any other check."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if getattr(key, "value", None) == "name" and isinstance(value, yaml.ScalarNode):
                return str(value.value)
    return None


# ---- running ---------------------------------------------------------------------------------


@dataclass
class StepRun:
    """One step as it ran: what it was sent, and its replies (several for a re-prompted
    last step, whose `output` is the last reply)."""

    step: PipelineStep
    system: str
    user: str
    completions: list[Completion]

    @property
    def output(self) -> str:
        return self.completions[-1].text

    @property
    def model(self) -> str:
        return self.completions[-1].model

    @property
    def tokens_in(self) -> int | None:
        return _total([c.tokens_in for c in self.completions])

    @property
    def tokens_out(self) -> int | None:
        return _total([c.tokens_out for c in self.completions])

    @property
    def cost(self) -> float | None:
        return _total([c.cost for c in self.completions])


@dataclass
class PipelineRun:
    pipeline: Pipeline
    message: str
    steps: list[StepRun] = field(default_factory=list)
    plan: Plan | None = None  # None: the last step's replies never made a valid plan
    attempts: list[Attempt] = field(default_factory=list)  # the last step's, as planning's

    @property
    def last(self) -> StepRun:
        return self.steps[-1]

    @property
    def tokens_in(self) -> int | None:
        return _total([s.tokens_in for s in self.steps])

    @property
    def tokens_out(self) -> int | None:
        return _total([s.tokens_out for s in self.steps])

    @property
    def cost(self) -> float | None:
        return _total([s.cost for s in self.steps])

    def usage(self) -> dict[str, object]:
        """The turn's usage, in the shape planning's `_usage` gives `record_plan`: the model
        that wrote the plan, and tokens and cost summed over every step and attempt."""
        return {
            "model": self.last.model,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": self.cost,
        }


def _total(values: list[_Number | None]) -> _Number | None:
    known = [v for v in values if v is not None]
    return sum(known[1:], known[0]) if known else None


def step_system(step: PipelineStep, project_file: Callable[[str], bytes | None]) -> str:
    """The usual `system_for`: the step's inline prompt, or its agent's prompt."""
    return step.prompt if step.prompt is not None else agent_prompt(step.agent or "", project_file)


def step_message(pipeline: Pipeline, index: int, payload: str, previous: StepRun | None) -> str:
    """A step's user message: the turn's payload, the previous step's output, the task."""
    step, count = pipeline.steps[index], len(pipeline.steps)
    parts = [payload.rstrip("\n") + "\n"]
    if previous is not None:
        output = previous.output if previous.output.endswith("\n") else previous.output + "\n"
        fence = fence_for(output)
        parts.append(
            f"\n## 6. Previous Step: `{previous.step.name}`\n"
            f"The output of step {index} of the pipeline ({previous.step.label}):\n"
            f"{fence}markdown\n{output}{fence}\n"
        )
    if index == count - 1:
        task = (
            "This is the last step: reply with exactly one plan in the plan format, for the "
            "user's message, building on the previous step's output."
            if previous
            else "Reply with exactly one plan in the plan format, for the user's message."
        )
    else:
        task = (
            f"Produce your step's output for the user's message: it is handed to the next "
            f"step, `{pipeline.steps[index + 1].name}`. Do not write a plan."
        )
    parts.append(f"\n## 7. Your Step: `{step.name}` ({index + 1} of {count})\n{task}\n")
    return "".join(parts)


def run_pipeline(
    pipeline: Pipeline,
    message: str,
    payload: str,
    system_for: Callable[[PipelineStep], str],
    provider_for: Callable[[str | None], Provider],
    ui: UI,
    retries: int = 2,
) -> PipelineRun:
    """Run the steps in order; the last one must reply with a plan and is re-prompted with
    its problems up to `retries` times. `payload` is what a single-model turn would send
    (it carries `message`); `provider_for(step.model)` gives the provider for a model
    (None: teddy.model). Provider errors propagate: nothing is recorded by this function."""
    systems = _systems(pipeline, system_for)  # every prompt resolves before tokens are spent
    run = PipelineRun(pipeline, message)
    count = len(pipeline.steps)
    for index, (step, system) in enumerate(zip(pipeline.steps, systems, strict=True)):
        provider = provider_for(step.model)
        ui.progress(
            f"pipeline {pipeline.name}: step {index + 1}/{count} `{step.name}` "
            f"({step.label}, {provider.model})"
        )
        user = step_message(pipeline, index, payload, run.steps[-1] if run.steps else None)
        if index < count - 1:
            completion = provider.complete(system, [ChatMessage(role="user", content=user)])
            run.steps.append(StepRun(step, system, user, [completion]))
            continue
        run.plan, run.attempts = ask_for_plan(provider, system, user, retries, ui)
        run.steps.append(StepRun(step, system, user, [a.completion for a in run.attempts]))
    return run


def _systems(pipeline: Pipeline, system_for: Callable[[PipelineStep], str]) -> list[str]:
    systems, problems, hint = [], [], FORMAT_HINT
    for step in pipeline.steps:
        try:
            systems.append(system_for(step))
        except TeddyError as error:
            problems.append((step.line, f"step `{step.name}`: {error.message}"))
            hint = error.hint or hint
    if problems:
        raise PipelineError(pipeline.path, problems, hint)
    return systems


def providers_from_settings(
    settings: Settings, derived_dir: Path, environ: Mapping[str, str] | None = None, *, ui: UI
) -> Callable[[str | None], Provider]:
    """`provider_for` from the settings: a step's `model` replaces teddy.model (and its
    TEDDY_MODEL override); one provider per model, made when first asked for."""
    made: dict[str | None, Provider] = {}

    def provider_for(model: str | None) -> Provider:
        if model not in made:
            chosen = settings if model is None else settings.replaced(MODEL, model)
            made[model] = provider_from_settings(chosen, derived_dir, environ, ui=ui)
        return made[model]

    return provider_for


# ---- recording -------------------------------------------------------------------------------


def pipeline_files(run: PipelineRun) -> dict[str, bytes]:
    """The files for the turn folder: `pipeline/pipeline.yaml` (the definition as used),
    `pipeline/NN-<step>.input.md` (exactly what the step was sent, in `_context.log`'s
    layout), `pipeline/NN-<step>.output.md` (its reply; for the last step, its last
    attempt) and `pipeline/run.yaml` (per step: agent, model, tokens, cost; totals)."""
    files = {"pipeline/pipeline.yaml": run.pipeline.source.encode()}
    for number, step in enumerate(run.steps, start=1):
        stem = f"pipeline/{number:02d}-{step.step.name}"
        files[f"{stem}.input.md"] = render_context_log(step.system, step.user).encode()
        files[f"{stem}.output.md"] = step.output.encode()
    files["pipeline/run.yaml"] = _run_summary(run).encode()
    return files


def _run_summary(run: PipelineRun) -> str:
    steps = [
        {
            "name": s.step.name,
            "agent": s.step.agent,
            "prompt": "inline" if s.step.prompt is not None else None,
            "model": s.model,
            "attempts": len(s.completions),
            "tokens_in": s.tokens_in,
            "tokens_out": s.tokens_out,
            "cost": s.cost,
        }
        for s in run.steps
    ]
    summary = {
        "pipeline": run.pipeline.name,
        "steps": [{k: v for k, v in s.items() if v is not None} for s in steps],
        "total": {"tokens_in": run.tokens_in, "tokens_out": run.tokens_out, "cost": run.cost},
        "plan": "valid" if run.plan is not None else "invalid",
    }
    return yaml.safe_dump(summary, sort_keys=False, allow_unicode=True)
