"""Fault suite, issue 14 items 12 (model replies and settings), 14 (cut-off replies) and 15
(a reply that never ends), against real local servers speaking the model APIs.

Every bad reply or setting is an `error:` + `hint:` (exit 1, no traceback, nothing
recorded, the user's files and the repository intact), or a retry where retrying makes
sense; and the next `git teddy plan` works.
"""

import json
from pathlib import Path

import pytest

from testing.commands import Result, Teddy, git
from testing.llm_servers import (
    AnthropicServer,
    OpenAIServer,
    Reply,
    ScriptedServer,
    error_reply,
    model_reply,
)
from testing.plans import create, plan_text

PLAN = plan_text(create("a.txt", "a\n"))
CUT = PLAN[: PLAN.index("a\n````") + 2]  # the reply stops inside the CREATE's block


class Session:
    """A session in `repo` whose model is `server`."""

    def __init__(self, repo: Path, teddy: Teddy, env: dict[str, str], server: ScriptedServer):
        env.update(server.env())  # type: ignore[attr-defined]
        self.repo, self.teddy, self.env, self.server = repo, teddy, env, server
        self.id = teddy.ok(repo, "new", "work").stdout.strip()
        self.files = {p.name: p.read_bytes() for p in repo.iterdir() if p.is_file()}

    def tip(self) -> str:
        return git(self.repo, self.env, "rev-parse", f"teddy/{self.id}/main").strip()

    def plan(self) -> Result:
        return self.teddy(self.repo, "plan", "-m", "go")

    def refused(self, result: Result, *said: str) -> None:
        """A user error, nothing recorded, everything intact, and planning works again."""
        assert result.returncode == 1, result.stdout + result.stderr
        assert "error:" in result.stderr and "hint:" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr, result.stderr
        for text in said:
            assert text in result.stderr
        self.intact()
        self.server.queue.clear()
        self.server.push(model_reply(PLAN))
        before = self.tip()
        recovered = self.plan()
        assert recovered.returncode == 0, recovered.stderr
        assert self.tip() != before
        self.intact()

    def intact(self) -> None:
        assert {p.name: p.read_bytes() for p in self.repo.iterdir() if p.is_file()} == self.files
        assert git(self.repo, self.env, "status", "--porcelain") == ""
        git(self.repo, self.env, "fsck", "--strict", "--no-progress")

    def recorded_plan(self) -> str:
        return git(self.repo, self.env, "show", f"teddy/{self.id}/main:01/plan.md")


@pytest.fixture
def openai(repo: Path, teddy: Teddy, env: dict[str, str], openai_server: OpenAIServer) -> Session:
    return Session(repo, teddy, env, openai_server)


@pytest.fixture
def anthropic(
    repo: Path, teddy: Teddy, env: dict[str, str], anthropic_server: AnthropicServer
) -> Session:
    return Session(repo, teddy, env, anthropic_server)


# ---- item 14: cut-off replies ------------------------------------------------------------------


def test_the_cut_plan_would_pass_without_the_finish_reason(teddy: Teddy, tmp_path: Path) -> None:
    """The premise of the cases below, and the validator's own check: a plan whose last
    code block never closes is flagged even when nothing says it was cut off."""
    plan = tmp_path / "cut.md"
    plan.write_text(CUT)
    result = teddy(tmp_path, "validate", str(plan))
    assert result.returncode == 1
    assert "error: line 21: the code block opened at line 21 is never closed" in result.stderr
    assert "hint: close every code block" in result.stderr


@pytest.mark.git  # its fixture is asked by name, which testing/tiers.py cannot see
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_reply_cut_at_the_output_limit_is_sent_back_not_recorded(
    request: pytest.FixtureRequest, provider: str
) -> None:
    session: Session = request.getfixturevalue(provider)
    whole_but_cut = plan_text(create("a.txt", "a\n"))  # complete text, yet cut off
    session.server.push(
        model_reply(whole_but_cut, finish_reason="length"), model_reply(plan_text(create("b", "")))
    )
    session.teddy.ok(session.repo, "plan", "-m", "go")
    _, second = session.server.requests
    asked = second.json["messages"][-1]["content"]
    assert "the reply was cut off: it reached the model's output limit" in asked
    assert "[b](/b)" in session.recorded_plan()
    attempts = git(session.repo, session.env, "show", f"teddy/{session.id}/main:01/attempts/")
    assert "01.problems.txt" in attempts


def test_a_cut_reply_with_no_retries_left_is_an_error(openai: Session) -> None:
    openai.env["TEDDY_MAX_RETRIES"] = "0"
    openai.server.push(model_reply(PLAN, finish_reason="length"))
    before = openai.tip()
    result = openai.plan()
    assert openai.tip() == before
    openai.refused(result, "the reply was cut off")


# ---- item 15: a reply that never ends -----------------------------------------------------------


def test_a_stream_of_keep_alives_ends_at_the_reply_timeout(openai: Session) -> None:
    openai.env["TEDDY_REPLY_TIMEOUT"] = "2"
    openai.server.push(model_reply(PLAN, keepalive=0.1))
    result = openai.plan()  # the keep-alives never end: only the reply timeout ends this
    assert len(openai.server.requests) == 1  # not retried: waiting again doubles the wait
    openai.refused(result, "did not finish its reply within 2 s (teddy.replyTimeout)")


# ---- item 12: bad settings -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value", "said"),
    [
        ("TEDDY_EXECUTE_TIMEOUT", "99999999999999999999", "teddy.execute.timeout"),
        ("TEDDY_MAX_RETRIES", "-1", "teddy.maxRetries"),
        ("TEDDY_MAX_RETRIES", "1g", "teddy.maxRetries"),
        ("TEDDY_RETRY_DELAY", "inf", "teddy.retryDelay"),
        ("TEDDY_RETRY_DELAY", "1e300", "teddy.retryDelay"),
        ("TEDDY_TIMEOUT", "99999999999999999999", "teddy.timeout"),
        ("TEDDY_REPLY_TIMEOUT", "0", "teddy.replyTimeout"),
        ("TEDDY_HTTP_RETRIES", "1000000", "teddy.httpRetries"),
        ("TEDDY_MAX_TOKENS", "99999999999999999999", "teddy.maxTokens"),
    ],
)
def test_a_setting_out_of_range_is_refused_before_anything_runs(
    openai: Session, variable: str, value: str, said: str
) -> None:
    openai.env[variable] = value
    result = openai.plan()
    assert openai.server.requests == []
    del openai.env[variable]
    openai.refused(result, f"error: {said} (set by {variable}) must be", "hint: fix or unset")


# ---- item 12: Retry-After -----------------------------------------------------------------------


@pytest.mark.parametrize("header", ["nan", "-5", "inf", "soon"])
def test_a_retry_after_that_is_no_wait_falls_back_to_backoff(openai: Session, header: str) -> None:
    busy = error_reply(429, "slow down")
    busy.headers["Retry-After"] = header
    openai.server.push(busy, model_reply(PLAN))
    openai.teddy.ok(openai.repo, "plan", "-m", "go")
    assert len(openai.server.requests) == 2


def test_a_huge_retry_after_is_an_error_at_once(openai: Session) -> None:
    openai.server.push(error_reply(429, "quota", retry_after=1e12))
    result = openai.plan()
    assert len(openai.server.requests) == 1
    openai.refused(result, "asks to wait 1e+12 s")


# ---- item 12: replies that are not the API ------------------------------------------------------


def completion(**fields: object) -> dict[str, object]:
    message = {"role": "assistant", "content": PLAN}
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return {"model": "m", "choices": [choice], "usage": {"prompt_tokens": 1}} | fields


def event_stream(*lines: bytes) -> Reply:
    return Reply(body=b"".join(lines), headers={"Content-Type": "text/event-stream"})


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (Reply(json=completion(choices="many")), "its `choices` is str, not a list"),
        (Reply(json=completion(choices=[7])), "a choice is not an object"),
        (Reply(json=completion(choices=[{"message": "hi"}])), "a choice is not an object"),
        (
            Reply(json=completion(choices=[{"message": {"content": 5}}])),
            "its `content` is int, not text",
        ),
        (Reply(json=completion(usage="lots")), "its `usage` is str, not an object"),
        (Reply(json=completion(model=["m"])), "its `model` is list, not a string"),
        (Reply(json=[1, 2]), "did not answer like an OpenAI-compatible API"),
        (Reply(body=b"\xff\xfe{}"), "its answer is not UTF-8 text"),
        (event_stream(b"data: \xff\xfe\n\n"), "its answer is not UTF-8 text"),
        (event_stream(b"data: {not json\n\n"), "did not answer like an OpenAI-compatible API"),
        (
            event_stream(b'data: {"choices": [{"delta": {"content": ["x"]}}]}\n\n'),
            "its `content` is list, not text",
        ),
    ],
)
def test_an_openai_reply_of_the_wrong_shape_is_an_error(
    openai: Session, reply: Reply, said: str
) -> None:
    openai.server.push(reply)
    openai.refused(openai.plan(), said, "hint: check `git config teddy.baseUrl`")


def test_usage_figures_of_the_wrong_type_are_unknown_not_fatal(openai: Session) -> None:
    usage = {"prompt_tokens": "many", "completion_tokens": -3}
    openai.server.push(Reply(json=completion(usage=usage)))
    openai.teddy.ok(openai.repo, "plan", "-m", "go")
    record = git(openai.repo, openai.env, "show", f"teddy/{openai.id}/main:01/turn.yaml")
    assert "many" not in record and "-3" not in record


def anthropic_message(**fields: object) -> dict[str, object]:
    body = {
        "model": "m",
        "content": [{"type": "text", "text": PLAN}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 2},
    }
    return body | fields


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (Reply(json=anthropic_message(content="text")), "its `content` is not a list of blocks"),
        (Reply(json=anthropic_message(content=[1])), "its `content` is not a list of blocks"),
        (
            Reply(json=anthropic_message(content=[{"type": "text", "text": 5}])),
            "a text block's `text` is not a string",
        ),
        (Reply(json=anthropic_message(usage=[1])), "its `usage` is list, not an object"),
        (Reply(json=anthropic_message(model=3)), "its `model` is int, not a string"),
        (Reply(body=b"\xff\xfe not json"), "did not answer like the Anthropic Messages API"),
    ],
)
def test_an_anthropic_reply_of_the_wrong_shape_is_an_error(
    anthropic: Session, reply: Reply, said: str
) -> None:
    anthropic.server.push(reply)
    anthropic.refused(anthropic.plan(), said, "hint: check `git config teddy.baseUrl`")


def test_the_recovered_plan_is_the_one_recorded(openai: Session) -> None:
    openai.server.push(Reply(json=completion(choices="x")))
    openai.refused(openai.plan(), "not a list")
    assert json.loads(openai.server.requests[-1].body)["model"] == "test-model"
    assert "[a.txt](/a.txt)" in openai.recorded_plan()
