"""Pipelines: parsing `.teddy/pipelines/<name>.yaml` (every problem with its line), and
running them against a real OpenAI-compatible server on 127.0.0.1 (testing/llm_servers.py)."""

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel, ValidationError

from git_teddy.errors import TeddyError
from git_teddy.llm import Provider
from git_teddy.planning.agents import agent_prompt
from git_teddy.planning.pipelines import (
    Pipeline,
    PipelineError,
    PipelineRun,
    PipelineStep,
    load_pipeline,
    parse_pipeline,
    pipeline_files,
    pipeline_names,
    providers_from_settings,
    run_pipeline,
    step_system,
)
from git_teddy.settings import Settings
from testing.llm_servers import TEST_KEY, OpenAIServer, model_reply
from testing.plans import create, plan_text
from testing.scripted_ui import ScriptedUI

VALID = plan_text(create("hello.txt", "hello\n"))
INVALID = "# Broken plan\n\n## Action Plan\n\n### `EDIT`\n- **File Path:** [a.py](/a.py)\n"
PAYLOAD = "## 2. Memos\n```yaml\n(none)\n```\n\n## 3. User Message\n```text\nSay hello\n```\n"

TWO_STEPS = """\
description: Analyse, then plan
steps:
  - name: analysis
    prompt: |
      You analyse the request.
    model: gpt-4o-mini
  - name: plan
    agent: dev
"""


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """requests would send even 127.0.0.1 through a proxy named in the environment."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def problems(text: str) -> list[tuple[int, str]]:
    with pytest.raises(PipelineError) as caught:
        parse_pipeline(text, "review")
    assert caught.value.message.startswith(".teddy/pipelines/review.yaml is not a valid pipeline")
    assert caught.value.hint
    return caught.value.problems


def no_files(path: str) -> bytes | None:
    return None


# ---- parsing ---------------------------------------------------------------------------------


def test_a_valid_pipeline() -> None:
    pipeline = parse_pipeline(TWO_STEPS, "review")
    assert pipeline.description == "Analyse, then plan"
    assert pipeline.path == ".teddy/pipelines/review.yaml" and pipeline.source == TWO_STEPS
    analysis, plan = pipeline.steps
    assert (analysis.name, analysis.agent, analysis.prompt) == (
        "analysis",
        None,
        "You analyse the request.\n",
    )
    assert (analysis.model, analysis.line) == ("gpt-4o-mini", 3)
    assert (plan.name, plan.agent, plan.prompt, plan.model, plan.line) == (
        "plan",
        "dev",
        None,
        None,
        7,
    )


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("steps: [\n", 2, "YAML syntax"),
        ("steps:\n  - name: a\n   agent: dev\n", 3, "YAML syntax"),
        ("- name: a\n  agent: dev\n", 1, "must be a mapping with `steps:`"),
        ("description: no steps\n", 1, "no `steps:`"),
        ("steps: []\n", 1, "`steps` must be a non-empty list"),
        ("steps:\n  - agent: dev\n", 2, "step 1 has no `name`"),
        ("steps:\n  - name: a\n    agent: dev\n    prompt: You plan.\n", 4, "both `agent` and"),
        ("steps:\n  - name: a\n    model: gpt-4o\n", 2, "needs an `agent` or an inline `prompt`"),
        ("steps:\n  - name: a\n    agent: dev\n    temperature: 0\n", 4, "unknown key `temp"),
        ("colour: red\nsteps:\n  - name: a\n    agent: dev\n", 1, "unknown key `colour`"),
        ("steps:\n  - name: a\n    agent: dev\n  - name: a\n    agent: dev\n", 4, "used twice"),
        ("steps:\n  - name: a\n    agent: dev\n    model: 4.5\n", 4, "must be text"),
        ("steps:\n  - name: 7\n    agent: dev\n", 2, "the name of step 1 must be text"),
        ("steps:\n  - name: a\n    agent:\n", 3, "`agent` of step `a` must be text"),
        ("steps:\n  - name: a\n    agent: [dev]\n", 3, "`agent` of step `a` must be text"),
        ("description: 3\nsteps:\n  - name: a\n    agent: dev\n", 1, "`description` must be"),
        ("steps:\n  - name: ../a\n    agent: dev\n", 2, "names are letters, digits"),
        ("steps:\n  - name: a\n    agent: dev\n    agent: x\n", 4, "`agent` is given twice"),
        ("steps:\n  - name: a\n    prompt: '  '\n", 3, "`prompt` of step `a` is empty"),
        ("steps:\n  - plan\n", 2, "step 1 must be a mapping"),
        ("steps:\n  - {}\n", 2, "step 1 is empty"),
        ("steps:\n  - name: a\n    agent: dev\n---\nsteps: []\n", 4, "single document"),
        ("", 1, "the file is empty"),
    ],
)
def test_invalid_pipelines_name_the_line(text: str, line: int, expected: str) -> None:
    found = problems(text)
    assert any(at == line and expected in message for at, message in found), found


def test_every_problem_is_listed_at_once_in_line_order() -> None:
    text = (
        "steps:\n"
        "  - name: a\n"  # 2
        "    agent: dev\n"
        "    promt: x\n"  # 4: unknown key
        "  - agent: dev\n"  # 5: no name
        "  - name: a\n"  # 6: duplicate
        "    prompt: p\n"
        "    agent: dev\n"  # 8: both
    )
    assert problems(text) == [
        (4, "unknown key `promt` in step 1 (allowed: `name`, `agent`, `prompt`, `model`)"),
        (5, "step 2 has no `name`"),
        (6, "step name `a` is used twice"),
        (8, "step `a` has both `agent` and `prompt`: give one of them"),
    ]
    with pytest.raises(PipelineError) as caught:
        parse_pipeline(text, "review")
    assert "\n  line 4: unknown key `promt`" in caught.value.message
    assert isinstance(caught.value, TeddyError)


def test_loading_by_name_from_the_snapshot() -> None:
    files = {".teddy/pipelines/review.yaml": TWO_STEPS.encode()}
    assert [s.name for s in load_pipeline("review", files.get).steps] == ["analysis", "plan"]
    assert load_pipeline("review.yaml", files.get).name == "review"


def test_an_unknown_pipeline_lists_those_present() -> None:
    present = [
        "README.md",
        ".teddy/pipelines/review.yaml",
        ".teddy/pipelines/deep.yaml",
        ".teddy/pipelines/notes.txt",
        ".teddy/pipelines/old/x.yaml",
    ]
    assert pipeline_names(present) == ["deep", "review"]
    with pytest.raises(TeddyError) as caught:
        load_pipeline("reveiw", no_files, present)
    assert caught.value.message == "unknown pipeline `reveiw`: this project has deep, review"
    assert caught.value.hint == "a pipeline `reveiw` is defined in .teddy/pipelines/reveiw.yaml"
    with pytest.raises(TeddyError, match="this project has none"):
        load_pipeline("review", no_files, [])
    with pytest.raises(TeddyError, match=r"unknown pipeline `\.\./x`"):
        load_pipeline("../x", lambda path: b"steps: []", present)


def test_a_pipeline_that_is_not_utf8() -> None:
    with pytest.raises(PipelineError, match="line 1: not UTF-8"):
        load_pipeline("bad", {".teddy/pipelines/bad.yaml": b"\xff\xfe steps"}.get)


# ---- running against a real server -----------------------------------------------------------


def settings(server: OpenAIServer, environ: dict[str, str] | None = None) -> Settings:
    """git config values pointing at the server, and the environment (TEDDY_* win)."""
    config = {
        "teddy.provider": "openai",
        "teddy.baseUrl": server.url,
        "teddy.model": "gpt-4o",
        "teddy.retryDelay": "0.01",
    }
    return Settings({k.lower(): [v] for k, v in config.items()}, environ or {})


def providers(server: OpenAIServer, tmp_path: Path) -> Callable[[str | None], Provider]:
    environ = {"OPENAI_API_KEY": TEST_KEY}
    return providers_from_settings(settings(server), tmp_path, environ, ui=ScriptedUI())


def run(
    pipeline: Pipeline, server: OpenAIServer, tmp_path: Path, retries: int = 2
) -> tuple[PipelineRun, list[str]]:
    ui = ScriptedUI()
    result = run_pipeline(
        pipeline,
        "Say hello",
        PAYLOAD,
        lambda step: step_system(step, no_files),
        providers(server, tmp_path),
        ui,
        retries=retries,
    )
    return result, ui.notes


def test_two_steps_feed_each_other_with_their_own_models(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    analysis = "The user wants a greeting.\n```text\nhello\n```\n"
    openai_server.push(
        model_reply(analysis, tokens_in=1000, tokens_out=100),
        model_reply(VALID, tokens_in=2000, tokens_out=300),
    )
    pipeline = parse_pipeline(TWO_STEPS, "review")
    result, said = run(pipeline, openai_server, tmp_path)

    first, second = (r.json for r in openai_server.requests)
    assert first["model"] == "gpt-4o-mini" and second["model"] == "gpt-4o"
    assert first["messages"][0] == {"role": "system", "content": "You analyse the request.\n"}
    assert second["messages"][0]["content"] == agent_prompt("dev", no_files)
    step1, step2 = first["messages"][1]["content"], second["messages"][1]["content"]
    assert step1.startswith(PAYLOAD) and "## 6. Previous Step" not in step1
    assert (
        "## 7. Your Step: `analysis` (1 of 2)" in step1 and "`plan`. Do not write a plan" in step1
    )
    assert step2.startswith(PAYLOAD)
    assert "## 6. Previous Step: `analysis`\n" in step2
    assert f"````markdown\n{analysis}````\n" in step2  # fenced longer than its own fences
    assert (
        "## 7. Your Step: `plan` (2 of 2)\nThis is the last step: reply with exactly one plan"
        in (step2)
    )
    assert said == [
        "pipeline review: step 1/2 `analysis` (inline prompt, gpt-4o-mini)",
        "pipeline review: step 2/2 `plan` (@dev, gpt-4o)",
    ]

    assert result.plan is not None and result.plan.title == "A plan"
    assert [s.output for s in result.steps] == [analysis, VALID]
    assert [s.model for s in result.steps] == ["gpt-4o-mini", "gpt-4o"]
    assert (result.tokens_in, result.tokens_out) == (3000, 400)
    mini = (1000 * 0.15 + 100 * 0.60) / 1e6
    full = (2000 * 2.50 + 300 * 10.00) / 1e6
    assert result.cost == pytest.approx(mini + full)
    assert result.usage() == {
        "model": "gpt-4o",
        "tokens_in": 3000,
        "tokens_out": 400,
        "cost": pytest.approx(mini + full),
    }
    assert len(result.attempts) == 1


def test_pipeline_files_hold_every_input_and_output(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    openai_server.push(model_reply("analysis out\n"), model_reply(VALID))
    result, _ = run(parse_pipeline(TWO_STEPS, "review"), openai_server, tmp_path)
    files = pipeline_files(result)
    assert sorted(files) == [
        "pipeline/01-analysis.input.md",
        "pipeline/01-analysis.output.md",
        "pipeline/02-plan.input.md",
        "pipeline/02-plan.output.md",
        "pipeline/pipeline.yaml",
        "pipeline/run.yaml",
    ]
    assert files["pipeline/pipeline.yaml"] == TWO_STEPS.encode()
    assert files["pipeline/01-analysis.output.md"] == b"analysis out\n"
    assert files["pipeline/02-plan.output.md"] == VALID.encode()
    second = openai_server.requests[1].json["messages"]
    text = files["pipeline/02-plan.input.md"].decode()
    assert text.startswith("# Context Log\n\n## 1. System Prompt\n")
    assert second[0]["content"] in text and text.endswith(second[1]["content"])
    summary = yaml.safe_load(files["pipeline/run.yaml"])
    assert summary["pipeline"] == "review" and summary["plan"] == "valid"
    assert [(s["name"], s["model"], s["attempts"]) for s in summary["steps"]] == [
        ("analysis", "gpt-4o-mini", 1),
        ("plan", "gpt-4o", 1),
    ]
    assert summary["steps"][0]["prompt"] == "inline" and summary["steps"][1]["agent"] == "dev"
    assert summary["total"]["tokens_in"] == 22


def test_only_the_last_step_is_reprompted_with_the_problems(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    openai_server.push(model_reply("analysis\n"), model_reply(INVALID), model_reply(VALID))
    result, said = run(parse_pipeline(TWO_STEPS, "review"), openai_server, tmp_path)
    assert len(openai_server.requests) == 3
    retry = openai_server.requests[2].json
    assert retry["model"] == "gpt-4o"
    roles = [m["role"] for m in retry["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert retry["messages"][1]["content"] == result.last.user
    assert retry["messages"][2]["content"] == INVALID
    assert "Rationale" in retry["messages"][3]["content"]
    assert said[-1].startswith("attempt 1: the plan has")
    assert result.plan is not None and len(result.attempts) == 2
    assert result.attempts[0].problems and not result.attempts[1].problems
    assert (result.tokens_in, result.tokens_out) == (33, 21)  # 3 calls of 11 in, 7 out
    assert result.last.output == VALID
    assert yaml.safe_load(pipeline_files(result)["pipeline/run.yaml"])["steps"][1]["attempts"] == 2


def test_an_invalid_plan_beyond_the_budget_is_returned_for_the_caller(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    openai_server.push(model_reply("analysis\n"))
    openai_server.default = model_reply(INVALID)
    result, _ = run(parse_pipeline(TWO_STEPS, "review"), openai_server, tmp_path, retries=1)
    assert result.plan is None and len(result.attempts) == 2
    assert len(openai_server.requests) == 3
    files = pipeline_files(result)
    assert files["pipeline/02-plan.output.md"] == INVALID.encode()
    assert yaml.safe_load(files["pipeline/run.yaml"])["plan"] == "invalid"


def test_a_single_step_pipeline_is_asked_for_the_plan_directly(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    openai_server.push(model_reply(VALID))
    pipeline = parse_pipeline("steps:\n  - name: plan\n    prompt: You plan.\n", "one")
    result, _ = run(pipeline, openai_server, tmp_path)
    (request,) = openai_server.requests
    user = request.json["messages"][1]["content"]
    assert "Previous Step" not in user
    assert user.endswith(
        "## 7. Your Step: `plan` (1 of 1)\nReply with exactly one plan in the "
        "plan format, for the user's message.\n"
    )
    assert result.plan is not None


def test_an_unknown_agent_fails_with_its_line_before_any_call(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    text = "steps:\n  - name: a\n    agent: nobody\n  - name: b\n    agent: dev\n"
    with pytest.raises(PipelineError) as caught:
        run(parse_pipeline(text, "review"), openai_server, tmp_path)
    assert caught.value.problems[0][0] == 2
    assert "step `a`: unknown agent `nobody`" in caught.value.problems[0][1]
    assert caught.value.hint and ".teddy/prompts/nobody.xml" in caught.value.hint
    assert openai_server.requests == []


def test_a_project_agent_prompt_is_the_step_system_prompt(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    files = {".teddy/prompts/critic.xml": b"<critic>Find the flaws.</critic>"}
    openai_server.push(model_reply("flaws\n"), model_reply(VALID))
    pipeline = parse_pipeline(
        "steps:\n  - name: critique\n    agent: Critic\n  - name: plan\n    agent: dev\n", "c"
    )
    run_pipeline(
        pipeline,
        "m",
        PAYLOAD,
        lambda step: step_system(step, files.get),
        providers(openai_server, tmp_path),
        ScriptedUI(),
    )
    assert pipeline.steps[0].agent == "critic"
    system = openai_server.requests[0].json["messages"][0]["content"]
    assert system == "<critic>Find the flaws.</critic>"


def test_providers_are_made_once_per_model_and_override_the_environment(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    environ = {"OPENAI_API_KEY": TEST_KEY, "TEDDY_MODEL": "from-env"}
    config = settings(openai_server, environ)
    provider_for = providers_from_settings(config, tmp_path, environ, ui=ScriptedUI())
    assert provider_for(None).model == "from-env"
    assert provider_for("gpt-4o-mini").model == "gpt-4o-mini"
    assert provider_for("gpt-4o-mini") is provider_for("gpt-4o-mini")


def test_the_pipeline_format_is_a_pydantic_model_like_every_other_format() -> None:
    pipeline = parse_pipeline(TWO_STEPS, "review")
    assert isinstance(pipeline, BaseModel) and isinstance(pipeline.steps[0], BaseModel)
    assert set(Pipeline.model_json_schema()["properties"]) >= {"steps", "description"}
    with pytest.raises(ValidationError):  # strict: a number is not a model's name
        PipelineStep.model_validate({"name": "a", "agent": "dev", "model": 4.5})
    with pytest.raises(ValidationError):  # exactly one of agent and prompt
        PipelineStep.model_validate({"name": "a", "agent": "dev", "prompt": "p"})
