"""Issue 28 item 2: `teddy.provider=llm` plans through simonw's llm library and its plugins.

No network: llm's own OpenAI plugin is pointed at the stand-in server on 127.0.0.1 through
`extra-openai-models.yaml` in llm's user folder (LLM_USER_PATH), its key taken from llm's key
store (keys.json) and the model named by an llm alias (aliases.json). The real executable."""

import json
from pathlib import Path

import pytest
import yaml

from testing.commands import Teddy, git
from testing.llm_servers import OpenAIServer, error_reply, model_reply
from testing.plans import create, plan_text

VALID = plan_text(create("hello.txt", "hello\n"))
STORED_KEY = "sk-llm-store-0123456789abcdef"


def llm_home(tmp_path: Path, server: OpenAIServer) -> Path:
    """llm's user folder: a model `local-planner` served by `server`, its key in llm's key
    store under `local`, and the alias `planner` for it."""
    home = tmp_path / "llm-home"
    home.mkdir()
    model = {
        "model_id": "local-planner",
        "model_name": "gpt-4o",
        "api_base": server.url,
        "api_key_name": "local",
    }
    (home / "extra-openai-models.yaml").write_text(yaml.safe_dump([model]))
    (home / "keys.json").write_text(json.dumps({"local": STORED_KEY}))
    (home / "aliases.json").write_text(json.dumps({"planner": "local-planner"}))
    return home


def llm_env(env: dict, home: Path, model: str = "planner") -> dict:
    return env | {"LLM_USER_PATH": str(home), "TEDDY_PROVIDER": "llm", "TEDDY_MODEL": model}


def test_a_turn_is_planned_through_llm_with_its_key_store_alias_and_usage(
    repo: Path, env: dict, tmp_path: Path, openai_server: OpenAIServer
) -> None:
    teddy = Teddy(llm_env(env, llm_home(tmp_path, openai_server)))
    session = teddy.ok(repo, "new", "through-llm").stdout.strip()
    openai_server.push(model_reply(VALID, tokens_in=1000, tokens_out=200))
    result = teddy.ok(repo, "plan", "-m", "Say hello")

    [request] = openai_server.requests
    assert request.headers["authorization"] == f"Bearer {STORED_KEY}"  # llm's key store
    assert request.json["model"] == "gpt-4o"  # the alias resolved to the plugin's model
    roles = [m["role"] for m in request.json["messages"]]
    assert roles[0] == "system" and roles[-1] == "user"
    assert "Say hello" in request.json["messages"][-1]["content"]
    assert request.json["stream"] is True

    found = yaml.safe_load(git(repo, env, "show", f"teddy/{session}/main:01/turn.yaml"))
    assert (found["tokens_in"], found["tokens_out"]) == (1000, 200)  # llm's usage
    assert "tokens_counted" not in found
    assert found["model"] == "local-planner"
    assert found["cost"] == pytest.approx(0.0045)  # gpt-4o's price: the model llm serves
    assert "1000 in, 200 out" in result.stdout
    teddy.ok(repo, "execute", "-y")
    assert (repo / "hello.txt").read_text() == "hello\n"


def test_an_unknown_llm_model_is_an_error_with_a_hint(
    repo: Path, env: dict, tmp_path: Path, openai_server: OpenAIServer
) -> None:
    teddy = Teddy(llm_env(env, llm_home(tmp_path, openai_server), model="no-such-model"))
    teddy.ok(repo, "new", "unknown-model")
    failed = teddy.exits(1, repo, "plan", "-m", "Say hello")
    assert "error: llm knows no model or alias 'no-such-model' (teddy.model)" in failed.stderr
    assert "hint: `llm models` lists the ids" in failed.stderr
    assert "Traceback" not in failed.stderr and not openai_server.requests


def test_a_model_failing_through_llm_is_an_error_with_the_key_redacted(
    repo: Path, env: dict, tmp_path: Path, openai_server: OpenAIServer
) -> None:
    home = llm_home(tmp_path, openai_server)
    (home / "keys.json").write_text("{}")
    # No key in llm's store: llm's plugin falls back to OPENAI_API_KEY, which the server
    # refuses, quoting it back as the OpenAI API does.
    key = "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8rS1tU4vW7xY0zB3cD6eF9"
    teddy = Teddy(llm_env(env, home) | {"OPENAI_API_KEY": key})
    teddy.ok(repo, "new", "failing-model")
    openai_server.default = error_reply(401, f"Incorrect API key provided: {key}")
    failed = teddy.exits(1, repo, "plan", "-m", "Say hello")
    assert "error: the llm model local-planner failed: AuthenticationError" in failed.stderr
    assert key not in failed.stderr and "hint: check the model with `llm -m" in failed.stderr
    assert "Traceback" not in failed.stderr


def test_llm_not_installed_is_an_error_with_the_install_command(
    repo: Path, env: dict, tmp_path: Path
) -> None:
    # A Python that cannot import llm: a package of that name first on the path refuses to
    # load, as a missing one would.
    blocked = tmp_path / "blocked" / "llm"
    blocked.mkdir(parents=True)
    (blocked / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'llm'\")\n")
    teddy = Teddy(env | {"TEDDY_PROVIDER": "llm", "PYTHONPATH": str(blocked.parent)})
    teddy.ok(repo, "new", "no-llm")
    failed = teddy.exits(1, repo, "plan", "-m", "Say hello")
    assert "error: teddy.provider is llm, but simonw's llm library is not installed" in (
        failed.stderr
    )
    assert "hint: pip install 'git-teddy[llm]'" in failed.stderr
    assert "Traceback" not in failed.stderr
