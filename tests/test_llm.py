"""Providers against real HTTP servers on 127.0.0.1 (testing/llm_servers.py), and the manual
and replay providers in real subprocesses."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from git_teddy.errors import TeddyError
from git_teddy.llm import ChatMessage, Provider, ProviderError, provider_from_settings
from git_teddy.llm.prices import PRICES, table_price
from git_teddy.settings import Settings
from testing.commands import Teddy
from testing.llm_servers import (
    TEST_KEY,
    AnthropicServer,
    OpenAIServer,
    Reply,
    error_reply,
    model_reply,
)
from testing.plans import create, plan_text
from testing.scripted_ui import ScriptedUI
from testing.waits import EVENT_TIMEOUT

MESSAGES = [
    ChatMessage(role="user", content="plan the next step"),
    ChatMessage(role="assistant", content="# Plan: first try"),
    ChatMessage(role="user", content="fix line 3"),
]
FAST = {"teddy.retrydelay": ["0.01"]}


def settings(**values: str) -> Settings:
    """git config values, e.g. settings(**{"teddy.provider": "openai"})."""
    git = {key.lower(): [value] for key, value in values.items()}
    return Settings({**FAST, **git}, {})


def openai(
    server: OpenAIServer,
    tmp_path: Path,
    key: str | None = TEST_KEY,
    ui: ScriptedUI | None = None,
    **values: str,
) -> Provider:
    config = {"teddy.provider": "openai", "teddy.baseUrl": server.url, "teddy.model": "gpt-4o"}
    environ = {"OPENAI_API_KEY": key} if key else {}
    config_values = settings(**(config | values))
    return provider_from_settings(config_values, tmp_path, environ, ui=ui or ScriptedUI())


def anthropic(
    server: AnthropicServer, tmp_path: Path, ui: ScriptedUI | None = None, **values: str
) -> Provider:
    config = {
        "teddy.provider": "anthropic",
        "teddy.baseUrl": server.url,
        "teddy.model": "claude-sonnet-4-5",
    }
    environ = {"ANTHROPIC_API_KEY": TEST_KEY}
    config_values = settings(**(config | values))
    return provider_from_settings(config_values, tmp_path, environ, ui=ui or ScriptedUI())


def fails(provider: Provider, match: str) -> ProviderError:
    with pytest.raises(ProviderError, match=match) as caught:
        provider.complete("You plan.", MESSAGES)
    error = caught.value
    assert TEST_KEY not in f"{error.message} {error.hint}"
    return error


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """requests would send even 127.0.0.1 through a proxy named in the environment."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


# ---- OpenAI-compatible chat completions --------------------------------------------------------


def test_openai_request_shape_usage_and_cost(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.push(model_reply("# Plan: add tests\n", tokens_in=1000, tokens_out=200))
    completion = openai(openai_server, tmp_path).complete("You are the planner.", MESSAGES)

    assert completion.model_dump() == {
        "text": "# Plan: add tests\n",
        "model": "gpt-4o",
        "provider": "openai",
        "tokens_in": 1000,
        "tokens_out": 200,
        "cost": pytest.approx((1000 * 2.50 + 200 * 10.00) / 1e6),
        "truncated": False,
        "tokens_counted": False,
    }
    [request] = openai_server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {TEST_KEY}"
    assert request.json == {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "You are the planner."},
            {"role": "user", "content": "plan the next step"},
            {"role": "assistant", "content": "# Plan: first try"},
            {"role": "user", "content": "fix line 3"},
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def test_openai_reports_the_served_model_and_prices_the_snapshot(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    openai_server.push(model_reply("hi", 1_000_000, 0, model="gpt-4o-mini-2024-07-18"))
    completion = openai(openai_server, tmp_path, **{"teddy.model": "gpt-4o-mini"}).complete(
        "s", MESSAGES
    )
    assert completion.model == "gpt-4o-mini-2024-07-18"
    assert completion.cost == pytest.approx(0.15)


def test_openai_accepts_a_plain_json_answer_to_a_streaming_request(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    body = {
        "model": "local",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "plain"}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1},
    }
    openai_server.push(Reply(json=body))
    completion = openai(openai_server, tmp_path, **{"teddy.model": "local"}).complete("s", MESSAGES)
    assert (completion.text, completion.tokens_in, completion.tokens_out) == ("plain", 3, 1)
    assert completion.cost is None  # no price known for "local"


def test_openai_local_server_needs_no_key(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai(openai_server, tmp_path, key=None).complete("s", MESSAGES)
    assert "authorization" not in openai_server.requests[0].headers


def test_teddy_api_key_is_used_and_wins(openai_server: OpenAIServer, tmp_path: Path) -> None:
    config = settings(
        **{"teddy.provider": "openai", "teddy.baseUrl": openai_server.url, "teddy.model": "m"}
    )
    environ = {"OPENAI_API_KEY": "sk-general", "TEDDY_API_KEY": "sk-teddy"}
    provider_from_settings(config, tmp_path, environ, ui=ScriptedUI()).complete("s", MESSAGES)
    assert openai_server.requests[0].headers["authorization"] == "Bearer sk-teddy"


def test_missing_key_for_the_public_api(tmp_path: Path) -> None:
    config = settings(**{"teddy.provider": "openai", "teddy.model": "gpt-4o"})
    with pytest.raises(ProviderError, match="no API key for openai") as caught:
        provider_from_settings(config, tmp_path, {}, ui=ScriptedUI())
    assert (
        caught.value.hint == "export OPENAI_API_KEY=... (keys are read from the environment only)"
    )
    config = settings(**{"teddy.provider": "anthropic", "teddy.model": "claude-sonnet-4-5"})
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        provider_from_settings(config, tmp_path, {"OPENAI_API_KEY": "sk-other"}, ui=ScriptedUI())


@pytest.mark.parametrize(
    ("provider", "model"), [("openai", "gpt-4.1"), ("anthropic", "claude-sonnet-4-5")]
)
def test_each_provider_has_its_default_model(provider: str, model: str, tmp_path: Path) -> None:
    config = settings(**{"teddy.provider": provider})
    chosen = provider_from_settings(config, tmp_path, {"TEDDY_API_KEY": "k"}, ui=ScriptedUI())
    assert (chosen.name, chosen.model) == (provider, model)
    empty = settings(**{"teddy.provider": provider, "teddy.model": ""})
    with pytest.raises(ProviderError, match=f"the {provider} provider needs a model") as caught:
        provider_from_settings(empty, tmp_path, {"TEDDY_API_KEY": "k"}, ui=ScriptedUI())
    assert f"git config teddy.model {model}" in (caught.value.hint or "")


@pytest.mark.parametrize(
    ("keys", "chosen"),
    [
        ({"ANTHROPIC_API_KEY": "a"}, ("anthropic", "claude-sonnet-4-5")),
        ({"OPENAI_API_KEY": "o"}, ("openai", "gpt-4.1")),
        ({"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a"}, ("anthropic", "claude-sonnet-4-5")),
        ({"TEDDY_API_KEY": "t"}, ("manual", "manual")),  # names no provider
        ({}, ("manual", "manual")),
    ],
)
def test_the_provider_follows_the_key_found(
    keys: dict[str, str], chosen: tuple[str, str], tmp_path: Path
) -> None:
    ui = ScriptedUI()
    provider = provider_from_settings(Settings({}, {}), tmp_path, keys, ui=ui)
    assert (provider.name, provider.model) == chosen
    if chosen[0] != "manual":
        assert ui.notes == [
            f"note: planning with {chosen[0]} {chosen[1]} ({chosen[0].upper()}_API_KEY is set); "
            "`git config teddy.provider ...` and `teddy.model` choose another"
        ]
    configured = settings(**{"teddy.provider": "manual"})  # a setting always wins
    assert provider_from_settings(configured, tmp_path, keys, ui=ScriptedUI()).name == "manual"
    model = settings(**{"teddy.model": "claude-opus-4-1"})
    if chosen[0] == "anthropic":
        assert provider_from_settings(model, tmp_path, keys, ui=ScriptedUI()).model == (
            "claude-opus-4-1"
        )


def test_unknown_provider_and_the_default(tmp_path: Path) -> None:
    with pytest.raises(
        TeddyError, match="must be openai, anthropic, manual, replay or llm, not 'gemini'"
    ):
        provider_from_settings(
            settings(**{"teddy.provider": "gemini"}), tmp_path, {}, ui=ScriptedUI()
        )
    default = provider_from_settings(Settings({}, {}), tmp_path, {}, ui=ScriptedUI())
    assert (default.name, default.model) == ("manual", "manual")


def test_environment_overrides_git_config(openai_server: OpenAIServer, tmp_path: Path) -> None:
    config = Settings({"teddy.provider": ["manual"]}, openai_server.env(model="env-model"))
    provider = provider_from_settings(
        config, tmp_path, {"OPENAI_API_KEY": TEST_KEY}, ui=ScriptedUI()
    )
    assert (provider.name, provider.model) == ("openai", "env-model")
    provider.complete("s", MESSAGES)
    assert openai_server.requests[0].json["model"] == "env-model"


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("teddy.baseUrl", "localhost:11434/v1", "must be an http"),
        ("teddy.retryDelay", "soon", "number of seconds"),
        ("teddy.timeout", "0", "from 1 to 86400"),
        ("teddy.httpRetries", "-1", "from 0 to 20"),
        ("teddy.timeout", "1.5", "whole number"),
    ],
)
def test_invalid_settings(
    openai_server: OpenAIServer, tmp_path: Path, key: str, value: str, match: str
) -> None:
    with pytest.raises(Exception, match=match):
        openai(openai_server, tmp_path, **{key: value})


# ---- Anthropic Messages ---------------------------------------------------------------------


def test_anthropic_request_shape_usage_and_cost(
    anthropic_server: AnthropicServer, tmp_path: Path
) -> None:
    anthropic_server.push(model_reply("# Plan: x\n", tokens_in=2000, tokens_out=100))
    completion = anthropic(anthropic_server, tmp_path).complete("You are the planner.", MESSAGES)

    assert completion.model_dump() == {
        "text": "# Plan: x\n",
        "model": "claude-sonnet-4-5",
        "provider": "anthropic",
        "tokens_in": 2000,
        "tokens_out": 100,
        "cost": pytest.approx((2000 * 3.0 + 100 * 15.0) / 1e6),
        "truncated": False,
        "tokens_counted": False,
    }
    [request] = anthropic_server.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == TEST_KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.json == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 8192,
        "system": "You are the planner.",
        "messages": [m.model_dump() for m in MESSAGES],
        "stream": True,
    }


def test_anthropic_streams_with_usage_from_the_stream_events(
    anthropic_server: AnthropicServer, tmp_path: Path
) -> None:
    """Issue 27 item 9: live text, input tokens from message_start, output tokens from the
    last message_delta, a cut-off reply marked truncated."""
    anthropic_server.push(
        model_reply("0123456789" * 3, tokens_in=700, tokens_out=9, finish_reason="length")
    )
    ui = ScriptedUI()
    completion = anthropic(anthropic_server, tmp_path, ui=ui).complete("s", MESSAGES)
    assert (completion.text, completion.tokens_in, completion.tokens_out) == (
        "0123456789" * 3,
        700,
        9,
    )
    assert completion.truncated
    assert ui.statuses[0] == "anthropic claude-sonnet-4-5: 5 characters"
    assert ui.statuses[-2:] == ["anthropic claude-sonnet-4-5: 30 characters", "<end>"]


def test_anthropic_accepts_a_plain_json_answer_to_a_streaming_request(
    anthropic_server: AnthropicServer, tmp_path: Path
) -> None:
    body = {
        "model": "claude-local",
        "content": [{"type": "text", "text": "plain"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 1},
    }
    anthropic_server.push(Reply(json=body))
    completion = anthropic(anthropic_server, tmp_path).complete("s", MESSAGES)
    assert (completion.text, completion.tokens_in, completion.tokens_out) == ("plain", 3, 1)


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        ({"type": "error", "error": {"type": "overloaded_error"}}, "failed while answering"),
        (
            {"type": "content_block_delta", "delta": {"type": "text_delta", "text": 7}},
            "not a string",
        ),
        ([1, 2], "an event is"),
    ],
)
def test_a_stream_event_that_is_not_the_api_is_an_error(
    anthropic_server: AnthropicServer, tmp_path: Path, event: object, expected: str
) -> None:
    stream = f"event: x\ndata: {json.dumps(event)}\n\n".encode()
    anthropic_server.push(Reply(body=stream, headers={"Content-Type": "text/event-stream"}))
    fails(anthropic(anthropic_server, tmp_path), expected)


def test_anthropic_max_tokens_setting(anthropic_server: AnthropicServer, tmp_path: Path) -> None:
    anthropic(anthropic_server, tmp_path, **{"teddy.maxTokens": "1024"}).complete("s", MESSAGES)
    assert anthropic_server.requests[0].json["max_tokens"] == 1024


def test_anthropic_errors_show_the_providers_message(
    anthropic_server: AnthropicServer, tmp_path: Path
) -> None:
    anthropic_server.push(error_reply(404, "model: claude-nope"))
    provider = anthropic(anthropic_server, tmp_path, **{"teddy.model": "claude-nope"})
    error = fails(provider, r"anthropic does not know model 'claude-nope' .*model: claude-nope")
    assert "teddy.model" in (error.hint or "")


def test_anthropic_retries_overloaded(anthropic_server: AnthropicServer, tmp_path: Path) -> None:
    anthropic_server.push(error_reply(529, "Overloaded"), model_reply("fine"))
    assert anthropic(anthropic_server, tmp_path).complete("s", MESSAGES).text == "fine"
    assert len(anthropic_server.requests) == 2


def test_a_body_that_is_not_the_api(anthropic_server: AnthropicServer, tmp_path: Path) -> None:
    anthropic_server.push(Reply(body=b"<html>proxy login</html>"))
    fails(anthropic(anthropic_server, tmp_path), "did not answer like the Anthropic Messages API")


# ---- retries -----------------------------------------------------------------------------------


def test_429_then_success(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.push(error_reply(429, "slow down"), error_reply(503, "busy"), model_reply("ok"))
    assert openai(openai_server, tmp_path).complete("s", MESSAGES).text == "ok"
    assert len(openai_server.requests) == 3
    assert openai_server.requests[0].json == openai_server.requests[2].json


def test_retry_after_is_honoured(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.push(error_reply(429, "slow down", retry_after=1), model_reply("ok"))
    started = time.monotonic()
    assert openai(openai_server, tmp_path).complete("s", MESSAGES).text == "ok"
    assert time.monotonic() - started >= 1.0  # the backoff alone would be 0.01 s


def test_a_long_retry_after_ends_at_once(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.push(error_reply(429, "quota", retry_after=3600))
    fails(openai(openai_server, tmp_path), r"rate-limiting .*asks to wait 3600 s: quota")
    assert len(openai_server.requests) == 1


def test_500_forever(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.default = error_reply(500, f"internal error for key {TEST_KEY}")
    provider = openai(openai_server, tmp_path, **{"teddy.httpRetries": "2"})
    error = fails(provider, r"openai failed \(HTTP 500\): internal error .*after 3 attempts")
    assert len(openai_server.requests) == 3
    assert "***" in error.message and "teddy.httpRetries" in (error.hint or "")


def test_backoff_doubles(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.default = error_reply(502, "bad gateway")
    provider = openai(openai_server, tmp_path, **{"teddy.retryDelay": "0.2"})
    started = time.monotonic()
    fails(provider, "HTTP 502")
    assert len(openai_server.requests) == 4  # the default: three retries
    assert time.monotonic() - started >= 0.2 + 0.4 + 0.8


def test_connection_reset_is_retried(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.push(Reply(drop=True), model_reply("after the reset"))
    assert openai(openai_server, tmp_path).complete("s", MESSAGES).text == "after the reset"
    assert len(openai_server.requests) == 2
    openai_server.default = Reply(drop=True)
    fails(openai(openai_server, tmp_path), r"connection to .* was lost.*after 4 attempts")


# ---- errors ------------------------------------------------------------------------------------


def test_401_rejected_key(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.push(error_reply(401, f"Incorrect API key provided: {TEST_KEY}"))
    error = fails(openai(openai_server, tmp_path), r"openai rejected the API key \(HTTP 401\)")
    assert "Incorrect API key provided: ***" in error.message
    assert "OPENAI_API_KEY" in (error.hint or "")
    assert len(openai_server.requests) == 1  # not retried


def test_401_without_a_key(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.push(error_reply(401, "missing bearer token"))
    error = fails(openai(openai_server, tmp_path, key=None), r"needs an API key \(HTTP 401\)")
    assert error.hint == "export OPENAI_API_KEY=... (or TEDDY_API_KEY)"


def test_403_and_400(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.push(error_reply(403, "project disabled"), error_reply(400, "bad messages"))
    fails(openai(openai_server, tmp_path), r"rejected the API key \(HTTP 403\): project disabled")
    fails(openai(openai_server, tmp_path), r"refused the request \(HTTP 400\): bad messages")


def test_404_unknown_model(openai_server: OpenAIServer, tmp_path: Path) -> None:
    message = "The model `gpt-9` does not exist or you do not have access to it."
    openai_server.push(error_reply(404, message))
    error = fails(openai(openai_server, tmp_path, **{"teddy.model": "gpt-9"}), "gpt-9")
    assert error.message == (
        f"openai does not know model 'gpt-9' at {openai_server.url}/chat/completions "
        f"(HTTP 404): {message}"
    )


def test_timeout_is_not_retried(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.push(Reply(delay=5))
    provider = openai(openai_server, tmp_path, **{"teddy.timeout": "1"})
    error = fails(
        provider, r"no answer from http://127\.0\.0\.1:\d+/v1/chat/completions within 1 s"
    )
    assert len(openai_server.requests) == 1
    assert "git config teddy.timeout" in (error.hint or "")


def test_a_stream_that_stalls_times_out(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.push(model_reply("a long plan that never ends", chunk_delay=3))
    fails(openai(openai_server, tmp_path, **{"teddy.timeout": "1"}), "within 1 s")


def test_a_slow_but_steady_stream_is_not_cut(openai_server: OpenAIServer, tmp_path: Path) -> None:
    text = "x" * 60  # 14 chunks, 0.1 s apart: longer than the timeout in all, never idle for it
    openai_server.push(model_reply(text, chunk_delay=0.1))
    provider = openai(openai_server, tmp_path, **{"teddy.timeout": "1"})
    assert provider.complete("s", MESSAGES).text == text


def test_connection_refused_names_the_url(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = settings(
        **{
            "teddy.provider": "openai",
            "teddy.baseUrl": f"http://127.0.0.1:{port}/v1",
            "teddy.model": "m",
        }
    )
    provider = provider_from_settings(
        config, tmp_path, {"OPENAI_API_KEY": TEST_KEY}, ui=ScriptedUI()
    )
    error = fails(provider, f"cannot connect to http://127.0.0.1:{port}/v1/chat/completions")
    assert error.message.endswith("connection refused")
    assert "teddy.baseUrl" in (error.hint or "")


# ---- prices ------------------------------------------------------------------------------------


def test_price_table_and_snapshots() -> None:
    assert table_price("claude-sonnet-4-5-20250929") == PRICES["claude-sonnet-4-5"]
    assert table_price("gpt-4.1-mini-2025-04-14") == PRICES["gpt-4.1-mini"]
    assert table_price("gpt-4.1") == PRICES["gpt-4.1"]
    assert table_price("llama3.1:8b") is None


def test_prices_from_git_config(openai_server: OpenAIServer, tmp_path: Path) -> None:
    openai_server.push(model_reply("a", 2_000_000, 1_000_000))
    provider = openai(
        openai_server,
        tmp_path,
        **{
            "teddy.model": "qwen2.5-coder:7b",
            "teddy.price.qwen2.5-coder:7b.input": "0.5",
            "teddy.price.qwen2.5-coder:7b.output": "1.5",
        },
    )
    assert provider.complete("s", MESSAGES).cost == pytest.approx(2 * 0.5 + 1.5)
    openai_server.push(model_reply("a", 1_000_000, 1_000_000))
    cheaper = openai(openai_server, tmp_path, **{"teddy.price.gpt-4o.output": "1"})
    assert cheaper.complete("s", MESSAGES).cost == pytest.approx(2.5 + 1)
    bad = openai(openai_server, tmp_path, **{"teddy.price.gpt-4o.input": "cheap"})
    with pytest.raises(TeddyError, match=r"teddy\.price\.gpt-4o\.input must be a price"):
        bad.complete("You plan.", MESSAGES)


# ---- manual and replay, in real processes ------------------------------------------------------

SCRIPT = """
import json, sys
from pathlib import Path
from git_teddy.settings import Settings
from git_teddy.llm import ChatMessage, Provider, ProviderError, provider_from_settings
from git_teddy.cli.terminal import TerminalUI

config = Settings.from_env(json.loads(sys.argv[1]))
provider = provider_from_settings(config, Path(sys.argv[2]), ui=TerminalUI())
messages = [ChatMessage(role="user", content="the payload")]
try:
    print(provider.complete("the system prompt", messages).model_dump_json())
except ProviderError as error:
    print(f"error: {error.message}\\nhint: {error.hint}", file=sys.stderr)
    sys.exit(1)
"""


def run_provider(
    tmp_path: Path, git: dict[str, str], env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    values = json.dumps({k.lower(): [v] for k, v in git.items()})
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, values, str(tmp_path / "derived")],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def fake_clipboard(folder: Path) -> dict[str, str]:
    """A PATH whose only clipboard tool is an `xsel` that saves what it is given."""
    folder.mkdir()
    xsel = folder / "xsel"
    xsel.write_text(
        f"#!{sys.executable}\nimport sys, pathlib\n"
        f"pathlib.Path({str(folder / 'clipboard.txt')!r}).write_bytes(sys.stdin.buffer.read())\n"
    )
    xsel.chmod(0o755)
    return {"PATH": str(folder), "HOME": str(folder), "LANG": "C.UTF-8"}


def test_manual_writes_the_payload_copies_it_and_reads_stdin(tmp_path: Path) -> None:
    env = fake_clipboard(tmp_path / "bin")
    done = run_provider(tmp_path, {}, env, stdin="# Plan: pasted\n")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "text": "# Plan: pasted\n",
        "model": "manual",
        "provider": "manual",
        "tokens_in": None,
        "tokens_out": None,
        "cost": None,
        "truncated": False,
        "tokens_counted": False,
    }
    payload = tmp_path / "derived" / "manual" / "payload-0001.md"
    expected = "# System prompt\n\nthe system prompt\n\n# User\n\nthe payload\n"
    assert payload.read_text() == expected
    assert (tmp_path / "bin" / "clipboard.txt").read_text() == expected
    assert done.stderr == (
        f"the request for the model is in {payload}\n"
        "it is also in the clipboard (xsel)\n"
        "paste the model's reply here, then press Ctrl-D on a line of its own (or save it and "
        "run `git teddy plan -m MSG --from-file REPLY.md`)\n"
    )
    again = run_provider(tmp_path, {"teddy.provider": "manual"}, env, stdin="second")
    assert json.loads(again.stdout)["text"] == "second"
    assert (tmp_path / "derived" / "manual" / "payload-0002.md").exists()


def test_manual_without_clipboard_and_with_an_empty_reply(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    env = {"PATH": str(tmp_path / "empty"), "LANG": "C.UTF-8"}
    done = run_provider(tmp_path, {}, env, stdin=" \n")
    assert done.returncode == 1
    assert "in the clipboard" not in done.stderr
    assert "error: no reply on stdin" in done.stderr
    assert "--from-file" in done.stderr


def test_manual_tells_and_reads_through_the_ui(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In this process, with a scripted UI: what the user is told, and each pasted reply."""
    monkeypatch.setenv("PATH", str(tmp_path))  # no clipboard tool
    ui = ScriptedUI(pastes=[b"# Plan: pasted\n", b"caf\xe9", b" \n"])
    provider = provider_from_settings(settings(), tmp_path, {}, ui=ui)
    assert provider.complete("s", MESSAGES).text == "# Plan: pasted\n"
    assert ui.notes == [
        f"the request for the model is in {tmp_path / 'manual' / 'payload-0001.md'}",
        "paste the model's reply here, then press Ctrl-D on a line of its own (or save it and "
        "run `git teddy plan -m MSG --from-file REPLY.md`)",
    ]
    fails(provider, r"the reply on stdin is not UTF-8 text \(byte 3\)")
    fails(provider, "no reply on stdin")
    assert ui.asked == ["paste"] * 3


def test_replay_order_persists_across_processes(tmp_path: Path) -> None:
    replies = tmp_path / "replies"
    replies.mkdir()
    for name, text in [("02-second.md", "two"), ("01-first.md", "one"), (".hidden", "no")]:
        (replies / name).write_text(text)
    git = {"teddy.provider": "replay", "teddy.replayDir": str(replies)}
    env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8"}

    outputs = [run_provider(tmp_path, git, env) for _ in range(3)]

    completions = [json.loads(o.stdout) for o in outputs[:2]]
    assert [(c["text"], c["provider"], c["model"]) for c in completions] == [
        ("one", "replay", "replay"),
        ("two", "replay", "replay"),
    ]
    assert completions[0]["tokens_in"] is None and completions[0]["cost"] is None
    assert outputs[2].returncode == 1
    assert f"error: no replies left in {replies} (all 2 were used)" in outputs[2].stderr
    [state] = (tmp_path / "derived" / "replay").iterdir()
    assert f"hint: add reply files there, or start again from the first: rm {state}" in (
        outputs[2].stderr
    )
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.md").write_text("another folder starts at its first reply")
    fresh = run_provider(tmp_path, git | {"teddy.replayDir": str(other)}, env)
    assert json.loads(fresh.stdout)["text"] == "another folder starts at its first reply"


def test_replay_needs_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ProviderError, match=r"needs a folder of replies \(teddy.replayDir\)"):
        provider_from_settings(
            settings(**{"teddy.provider": "replay"}), tmp_path, {}, ui=ScriptedUI()
        )
    missing = settings(**{"teddy.provider": "replay", "teddy.replayDir": str(tmp_path / "no")})
    with pytest.raises(ProviderError, match="is not a folder"):
        provider_from_settings(missing, tmp_path, {}, ui=ScriptedUI())


# ---- terminal progress and start-up cost -------------------------------------------------------


def test_progress_goes_to_the_ui_status_line(
    openai_server: OpenAIServer, anthropic_server: AnthropicServer, tmp_path: Path
) -> None:
    openai_server.push(model_reply("0123456789" * 3))
    ui = ScriptedUI()
    openai(openai_server, tmp_path, ui=ui).complete("s", MESSAGES)
    assert ui.statuses[-2:] == ["openai gpt-4o: 30 characters", "<end>"]
    anthropic_server.push(model_reply("0123456789" * 3))
    streamed = ScriptedUI()
    anthropic(anthropic_server, tmp_path, ui=streamed).complete("s", MESSAGES)
    assert streamed.statuses[-2:] == ["anthropic claude-sonnet-4-5: 30 characters", "<end>"]


def test_progress_only_in_a_terminal(openai_server: OpenAIServer, tmp_path: Path) -> None:
    git = {"teddy.provider": "openai", "teddy.baseUrl": openai_server.url, "teddy.model": "m"}
    env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", "TEDDY_RETRY_DELAY": "0.01"}
    openai_server.default = model_reply("0123456789" * 3, chunk_delay=0.05)
    piped = run_provider(tmp_path, git, env)
    assert piped.returncode == 0 and piped.stderr == ""

    values = json.dumps({k.lower(): [v] for k, v in git.items()})
    child = pexpect.spawn(
        sys.executable,
        ["-c", SCRIPT, values, str(tmp_path / "derived")],
        env=env,
        encoding="utf-8",
        timeout=30,
    )
    child.expect(r"\ropenai m: 5 characters\ropenai m: 10 characters")  # live, chunk by chunk
    child.expect(r"openai m: 30 characters\r?\n")
    child.expect(r'"text":"0123456789')
    child.expect(pexpect.EOF)


def test_anthropic_streams_live_in_a_terminal(
    anthropic_server: AnthropicServer, tmp_path: Path
) -> None:
    git = {"teddy.provider": "anthropic", "teddy.baseUrl": anthropic_server.url}
    git["teddy.model"] = "claude-haiku-4-5"
    env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", "ANTHROPIC_API_KEY": TEST_KEY}
    piped = run_provider(tmp_path, git, env)
    assert piped.returncode == 0 and piped.stderr == ""
    values = json.dumps({k.lower(): [v] for k, v in git.items()})
    args = ["-c", SCRIPT, values, str(tmp_path / "derived")]
    child = pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", timeout=EVENT_TIMEOUT)
    child.expect(r"anthropic claude-haiku-4-5: 2 characters\r?\n")  # "OK", streamed
    child.expect(r'"text":"OK"')
    child.expect(pexpect.EOF)


def test_importing_the_package_does_not_import_requests() -> None:
    code = "import sys, git_teddy.llm; print('requests' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_turn_with_only_an_anthropic_key_set(
    repo: Path, teddy: Teddy, env: dict, anthropic_server: AnthropicServer
) -> None:
    """No teddy.* setting: the key in the environment picks the provider and its model (the
    base URL points at the local server, as the public API cannot be reached here)."""
    env.update(ANTHROPIC_API_KEY=TEST_KEY, TEDDY_BASE_URL=anthropic_server.url)
    anthropic_server.push(model_reply(plan_text(create("hello.txt", "hello\n"))))
    teddy.ok(repo, "new", "keyed")
    planned = teddy.ok(repo, "plan", "-m", "say hello")
    assert "note: planning with anthropic claude-sonnet-4-5 (ANTHROPIC_API_KEY is set)" in (
        planned.stderr
    )
    assert anthropic_server.requests[0].json["model"] == "claude-sonnet-4-5"
    teddy.ok(repo, "execute", "-y")
    assert (repo / "hello.txt").read_text() == "hello\n"
