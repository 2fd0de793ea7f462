"""OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM, llama.cpp, LM Studio...).

Always streamed, so there is one code path: the UI's status line shows a live count of the
characters received (on a terminal; elsewhere nothing is printed). Usage comes from the final
chunk that `stream_options.include_usage` asks for; servers that ignore it leave the tokens
unknown. A reply cut off at the output limit (`finish_reason: "length"`) is marked
`truncated`; a chunk that is not the API's shape (wrong types, not UTF-8, not JSON) is a
ProviderError, never a traceback.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from git_teddy.llm.base import ChatMessage, Completion, ProviderError, token_count
from git_teddy.llm.http import Body, Endpoint, HttpPolicy, post_json
from git_teddy.llm.prices import cost_of
from git_teddy.settings import Settings
from git_teddy.ui import UI

OPENAI_URL = "https://api.openai.com/v1"


@dataclass
class _Reply:
    parts: list[str] = field(default_factory=list)
    model: str | None = None
    usage: dict[str, Any] | None = None
    truncated: bool = False


@dataclass
class OpenAIProvider:
    model: str
    endpoint: Endpoint
    policy: HttpPolicy
    settings: Settings
    ui: UI  # where the live count goes
    name: str = "openai"

    def complete(self, system: str, messages: list[ChatMessage]) -> Completion:
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}]
            + [m.model_dump() for m in messages],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        reply = post_json(self.endpoint, body, self.policy, self._read)
        usage = reply.usage or {}
        tokens_in = token_count(usage.get("prompt_tokens"))
        tokens_out = token_count(usage.get("completion_tokens"))
        model = reply.model or self.model
        return Completion(
            text="".join(reply.parts),
            model=model,
            provider=self.name,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost=cost_of(self.settings, [self.model, model], tokens_in, tokens_out),
            truncated=reply.truncated,
        )

    def _read(self, answer: Body) -> _Reply:
        reply, received = _Reply(), 0
        try:
            for chunk in _events(answer, self.endpoint):
                received += _take(chunk, reply, self.endpoint)
                self.ui.status(f"{self.name} {self.model}: {received} characters")
        finally:
            if received:
                self.ui.end_status()
        return reply


def _take(chunk: dict[str, Any], reply: _Reply, endpoint: Endpoint) -> int:
    """Add one chunk to `reply`; the number of characters it brought."""
    model, usage, choices = chunk.get("model"), chunk.get("usage"), chunk.get("choices")
    if model is not None and not isinstance(model, str):
        raise _not_the_api(endpoint, f"its `model` is {type(model).__name__}, not a string")
    if usage is not None and not isinstance(usage, dict):
        raise _not_the_api(endpoint, f"its `usage` is {type(usage).__name__}, not an object")
    if choices is not None and not isinstance(choices, list):
        raise _not_the_api(endpoint, f"its `choices` is {type(choices).__name__}, not a list")
    reply.model = model or reply.model
    reply.usage = usage or reply.usage
    received = 0
    for choice in choices or []:
        delta = choice.get("delta") if isinstance(choice, dict) else None
        text = delta.get("content") if isinstance(delta, dict) else None
        if not isinstance(choice, dict) or not isinstance(delta, dict | None):
            raise _not_the_api(endpoint, "a choice is not an object with a `delta` object")
        if not isinstance(text, str | None):
            raise _not_the_api(endpoint, f"its `content` is {type(text).__name__}, not text")
        reply.parts.append(text or "")
        received += len(text or "")
        if choice.get("finish_reason") == "length":
            reply.truncated = True  # the model reached its output limit mid-reply
    return received


def _not_the_api(endpoint: Endpoint, what: str) -> ProviderError:
    return endpoint.error(
        f"{endpoint.url} did not answer like an OpenAI-compatible API: {what}",
        "check `git config teddy.baseUrl` (it usually ends in /v1) and the server's version",
    )


def _events(answer: Body, endpoint: Endpoint) -> Iterator[dict[str, Any]]:
    """The JSON chunks of a server-sent event stream, up to `data: [DONE]`.

    A server that answers a streaming request with one plain JSON completion is accepted too.
    """
    if "text/event-stream" not in answer.headers.get("Content-Type", ""):
        data = _json(_utf8(answer.content(), endpoint), endpoint)
        choices = data.get("choices")
        for choice in choices if isinstance(choices, list) else []:
            if isinstance(choice, dict):
                choice["delta"] = choice.get("message") or {}
        yield data
        return
    for line in answer.lines():
        if not line.startswith(b"data:"):
            continue  # blank separators, comments, `event:` lines
        payload = _utf8(line[5:], endpoint).strip()
        if payload == "[DONE]":
            return
        chunk = _json(payload, endpoint)
        if "error" in chunk:
            raise endpoint.error(
                f"{endpoint.provider} failed while answering: {chunk['error']}",
                "try again later",
            )
        yield chunk


def _utf8(data: bytes, endpoint: Endpoint) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _not_the_api(endpoint, f"its answer is not UTF-8 text ({error.reason})") from None


def _json(text: str, endpoint: Endpoint) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise _not_the_api(endpoint, repr(text[:200]))
    return data
