"""The Anthropic Messages API, streamed like the OpenAI-compatible provider: the UI's status
line shows a live count of the characters received; the input tokens come with
`message_start`, the output tokens with the last `message_delta`. A server that answers
with one JSON message instead of a stream is read as such.

A reply cut off at `max_tokens` (`stop_reason: "max_tokens"`) is marked `truncated`; an
answer that is not the API's shape (wrong types, not JSON, not UTF-8) or an `error` event
is a ProviderError.
"""

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from git_teddy.llm.base import ChatMessage, Completion, ProviderError, token_count
from git_teddy.llm.http import Body, Endpoint, HttpPolicy, post_json
from git_teddy.llm.prices import cost_of
from git_teddy.settings import MAX_TOKENS, Settings
from git_teddy.ui import UI

ANTHROPIC_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"


@dataclass
class AnthropicProvider:
    model: str
    endpoint: Endpoint
    policy: HttpPolicy
    settings: Settings
    ui: UI  # where the wait is shown
    max_tokens: int = MAX_TOKENS.default
    name: str = "anthropic"

    def complete(self, system: str, messages: list[ChatMessage]) -> Completion:
        body = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": system,
            "messages": [m.model_dump() for m in messages],
            "stream": True,
        }
        data = post_json(self.endpoint, body, self.policy, self._read)
        blocks = data.get("content") or []
        text = "".join(b["text"] for b in blocks if b.get("type") == "text")
        usage = data.get("usage") or {}
        tokens_in = token_count(usage.get("input_tokens"))
        tokens_out = token_count(usage.get("output_tokens"))
        model = data.get("model") or self.model
        return Completion(
            text=text,
            model=model,
            provider=self.name,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost=cost_of(self.settings, [self.model, model], tokens_in, tokens_out),
            truncated=data.get("stop_reason") == "max_tokens",
        )

    def _read(self, answer: Body) -> dict[str, Any]:
        """The message, as the non-streamed API gives it, built from the stream's events."""
        if "text/event-stream" not in answer.headers.get("Content-Type", ""):
            return self._checked(_decoded(answer.content()))
        message: dict[str, Any] = {"content": [{"type": "text", "text": ""}], "usage": {}}
        received = 0
        try:
            for event in self._events(answer):
                brought = _take(event, message, self._not_the_api)
                if brought:
                    received += brought
                    self.ui.status(f"{self.name} {self.model}: {received} characters")
        finally:
            if received:
                self.ui.end_status()
        return self._checked(message)

    def _events(self, answer: Body) -> Iterator[dict[str, Any]]:
        for line in answer.lines():
            if not line.startswith(b"data:"):
                continue  # `event:` lines (the data says its type too), blank separators
            event = _decoded(line[5:])
            if not isinstance(event, dict):
                raise self._not_the_api(f"an event is {str(event)[:200]!r}")
            if event.get("type") == "error":
                raise self.endpoint.error(
                    f"{self.endpoint.provider} failed while answering: {event.get('error')}",
                    "try again later",
                )
            yield event
            if event.get("type") == "message_stop":
                return

    def _checked(self, data: object) -> dict[str, Any]:
        problem = _shape_problem(data)
        if problem is not None:
            raise self._not_the_api(problem)
        assert isinstance(data, dict)
        return data

    def _not_the_api(self, problem: str) -> ProviderError:
        return self.endpoint.error(
            f"{self.endpoint.url} did not answer like the Anthropic Messages API: {problem}",
            "check `git config teddy.baseUrl` (the default is https://api.anthropic.com)",
        )


def _decoded(content: bytes) -> object:
    try:
        return json.loads(content)
    except ValueError:  # not JSON, or not UTF-8
        return content.decode("utf-8", "replace")


def _take(
    event: dict[str, Any], message: dict[str, Any], not_the_api: Callable[[str], ProviderError]
) -> int:
    """Add one stream event to `message`; the number of characters it brought."""
    kind = event.get("type")
    if kind == "message_start":
        start = event.get("message")
        if not isinstance(start, dict):
            raise not_the_api("its `message_start` holds no message")
        message["model"] = start.get("model")
        message["usage"] = start.get("usage") or {}
    elif kind == "content_block_delta":
        delta = event.get("delta")
        text = delta.get("text") if isinstance(delta, dict) else None
        if isinstance(delta, dict) and delta.get("type") == "text_delta":
            if not isinstance(text, str):
                raise not_the_api("a text delta's `text` is not a string")
            message["content"][0]["text"] += text
            return len(text)
    elif kind == "message_delta":
        delta, usage = event.get("delta"), event.get("usage")
        if isinstance(delta, dict) and delta.get("stop_reason"):
            message["stop_reason"] = delta["stop_reason"]
        if isinstance(usage, dict) and isinstance(message["usage"], dict):
            message["usage"] = {**message["usage"], **usage}  # the final output count
    return 0


def _shape_problem(data: object) -> str | None:
    """What makes `data` not a Messages API answer, or None: the fields read must have
    their documented types (content: a list of objects, a text block's text a string...)."""
    if not isinstance(data, dict):
        return f"{str(data)[:200]!r}"
    content, usage, model = data.get("content") or [], data.get("usage") or {}, data.get("model")
    if not isinstance(content, list) or not all(isinstance(b, dict) for b in content):
        return "its `content` is not a list of blocks"
    if any(b.get("type") == "text" and not isinstance(b.get("text"), str) for b in content):
        return "a text block's `text` is not a string"
    if not isinstance(usage, dict):
        return f"its `usage` is {type(usage).__name__}, not an object"
    if model is not None and not isinstance(model, str):
        return f"its `model` is {type(model).__name__}, not a string"
    return None
