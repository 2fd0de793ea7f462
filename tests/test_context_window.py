"""Issue 27 item 8: a request is compared with the model's context window before it is sent
(teddy.contextWindow, else a table of known models); over it, the command stops and names
what to drop; an Ollama endpoint gets a warning naming OLLAMA_CONTEXT_LENGTH. Against the
stand-in model on 127.0.0.1."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from git_teddy.llm.windows import is_ollama, known_window, over_window
from testing.commands import Teddy, git
from testing.llm_servers import OpenAIServer, model_reply
from testing.plans import create, plan_text

VALID = plan_text(create("hello.txt", "hello\n"))
BIG = "lorem ipsum dolor sit amet " * 1200  # about 6,000 tokens


class OllamaServer(OpenAIServer):
    """The stand-in model served under `/api/...`, where Ollama's own API lives."""

    path = "/api/v1/chat/completions"
    prefix = "/api/v1"


def test_the_table_and_the_ollama_guess() -> None:
    assert known_window("gpt-4o-mini") == 128_000
    assert known_window("gpt-4") == 8_192
    assert known_window("claude-sonnet-4-5") == 200_000
    assert known_window("llama3.1:8b") == 131_072
    assert known_window("my-own-model") is None
    assert is_ollama("http://localhost:11434/v1") and is_ollama("http://gpu.lan:8080/api")
    assert not is_ollama("https://api.openai.com/v1") and not is_ollama("http://[::1")
    message, hint = over_window(9000, 8192, "gpt-4's", [("a.py", 10), ("big.txt", 7000)])
    assert message.startswith("the request is 9,000 tokens, over the model's context window")
    assert hint.index("big.txt (7,000 tokens)") < hint.index("a.py (10 tokens)")


def test_a_request_over_the_set_window_stops_before_it_is_sent(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env(model="gpt-4o"))
    (repo / "big.txt").write_text(BIG)
    git(repo, env, "config", "teddy.contextWindow", "7000")
    teddy.ok(repo, "new", "window")
    teddy.ok(repo, "add", "big.txt")
    result = teddy.exits(1, repo, "plan", "-m", "Say hello in a file")
    assert "error: the request is " in result.stderr
    assert "over the model's context window of 7,000 (teddy.contextWindow)" in result.stderr
    assert "hint: drop the biggest entries" in result.stderr
    assert "big.txt (" in result.stderr and "Traceback" not in result.stderr
    assert openai_server.requests == []  # nothing was sent

    teddy.ok(repo, "drop", "big.txt")
    openai_server.push(model_reply(VALID, tokens_in=10, tokens_out=5))
    teddy.ok(repo, "plan", "-m", "Say hello in a file")
    assert len(openai_server.requests) == 1


def test_a_known_models_window_applies_without_the_setting(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env(model="gpt-4"))  # 8,192 tokens
    (repo / "big.txt").write_text(BIG)
    teddy.ok(repo, "new", "known")
    teddy.ok(repo, "add", "big.txt")
    result = teddy.exits(1, repo, "plan", "-m", "hello")
    assert "context window of 8,192 (gpt-4's, from git-teddy's table of models)" in result.stderr
    assert openai_server.requests == []


@pytest.fixture
def ollama_server() -> Iterator[OllamaServer]:
    with OllamaServer() as server:
        yield server


def test_an_ollama_endpoint_is_warned_about_its_context_length(
    repo: Path, teddy: Teddy, env: dict, ollama_server: OllamaServer
) -> None:
    env.update(ollama_server.env(model="llama3.1:8b"))
    teddy.ok(repo, "new", "local")
    ollama_server.push(model_reply(VALID, tokens_in=10, tokens_out=5))
    result = teddy.ok(repo, "plan", "-m", "hello")
    output = result.stdout + result.stderr
    assert "OLLAMA_CONTEXT_LENGTH=" in output and "an Ollama endpoint" in output
    assert len(ollama_server.requests) == 1

    # Once the window is set, the user has told git-teddy what Ollama serves: no warning.
    git(repo, env, "config", "teddy.contextWindow", "32768")
    teddy.ok(repo, "execute", "-y")
    ollama_server.push(model_reply(plan_text(create("b.txt", "b\n")), tokens_in=1, tokens_out=1))
    result = teddy.ok(repo, "plan", "-m", "again")
    assert "OLLAMA_CONTEXT_LENGTH" not in result.stdout + result.stderr
