"""Issue 27 item 7, honest books: tokens are recorded for every provider (counted here, and
said so, when the provider reports none), every model call counts (the replies of a plan that
stayed invalid too), an unknown cost is never shown as $0.0000, and `git teddy context`'s
total includes the system prompt. The real executable, replay and the stand-in model."""

import json
from pathlib import Path

import pytest
import yaml

from git_teddy.planning.agents import bundled_prompt
from git_teddy.planning.tokens import TokenCounter
from testing.commands import Teddy, git
from testing.llm_servers import OpenAIServer, model_reply
from testing.plans import create, plan_text
from testing.sessions import queue

VALID = plan_text(create("hello.txt", "hello\n"))
INVALID = "# Broken plan\n\n## Action Plan\n\n### `EDIT`\n- **File Path:** [a.py](/a.py)\n"


def record(repo: Path, env: dict, session: str, turn: str) -> dict:
    return yaml.safe_load(git(repo, env, "show", f"teddy/{session}/main:{turn}/turn.yaml"))


def test_replayed_replies_are_counted_and_their_cost_is_unknown(
    repo: Path, teddy: Teddy, env: dict, replies: Path
) -> None:
    queue(replies, VALID)
    session = teddy.ok(repo, "new", "counted").stdout.strip()
    result = teddy.ok(repo, "plan", "-m", "Say hello")
    found = record(repo, env, session, "01")
    assert found["tokens_counted"] is True and found["cost"] is None
    assert found["tokens_in"] > 3000  # the system prompt alone is over 3,000 tokens
    assert found["tokens_out"] == TokenCounter("o200k_base").count(VALID)
    said = f"{found['tokens_in']} in, {found['tokens_out']} out (counted here"
    assert said in result.stdout and "cost unknown" in result.stdout
    assert "0 in, 0 out" not in result.stdout

    stats = teddy.ok(repo, "stats").stdout
    assert f"tokens        {found['tokens_in'] + found['tokens_out']}" in stats
    assert "cost          unknown" in stats and "$0.0000" not in stats


def test_the_replies_of_a_plan_that_stayed_invalid_count_in_the_next_turn(
    repo: Path, teddy: Teddy, env: dict, openai_server: OpenAIServer
) -> None:
    env.update(openai_server.env(model="gpt-4o"))
    session = teddy.ok(repo, "new", "books").stdout.strip()
    openai_server.push(*[model_reply(INVALID, tokens_in=1000, tokens_out=100)] * 3)
    failed = teddy.exits(1, repo, "plan", "-m", "Say hello")
    assert "not valid after 3 attempt(s) (3000 tokens in, 300 out, $0.0105;" in failed.stderr

    openai_server.push(model_reply(VALID, tokens_in=500, tokens_out=50))
    teddy.ok(repo, "plan", "-m", "Say hello")
    found = record(repo, env, session, "01")
    assert (found["tokens_in"], found["tokens_out"]) == (3500, 350)
    assert found["cost"] == pytest.approx(0.01225)
    assert "tokens_counted" not in found  # every figure came from the provider
    stats = teddy.ok(repo, "stats").stdout
    assert "tokens        3850" in stats and "$0.0123" in stats

    # Charged once: a later turn does not count them again.
    teddy.ok(repo, "execute", "-y")
    openai_server.push(model_reply(plan_text(create("b.txt", "b\n")), tokens_in=7, tokens_out=3))
    teddy.ok(repo, "plan", "-m", "More")
    assert (record(repo, env, session, "02")["tokens_in"]) == 7


def test_context_total_includes_the_system_prompt(repo: Path, teddy: Teddy) -> None:
    teddy.ok(repo, "new", "totals")
    data = json.loads(teddy.ok(repo, "context", "--json").stdout)
    system = data["system_prompt_tokens"]
    assert system == TokenCounter("o200k_base").count(bundled_prompt("dev"))
    resources = sum(r["tokens"] for r in data["resources"])
    assert data["total_tokens"] == resources + data["overview_tokens"] + system
    text = teddy.ok(repo, "context").stdout
    assert f"{system:>8}  (system prompt of dev)" in text
    assert f"{data['total_tokens']:>8}  total" in text
