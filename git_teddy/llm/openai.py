"""OpenAI-compatible Chat Completions (OpenAI, Ollama, vLLM, llama.cpp, LM Studio...).

Always streamed, so there is one code path: the UI's status line shows a live count of the
characters received (on a terminal; elsewhere nothing is printed). Usage comes from the final
chunk that `stream_options.include_usage` asks for; servers that ignore it leave the tokens
unknown.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from git_teddy.llm.base import ChatMessage, Completion, ProviderError
from git_teddy.llm.http import Endpoint, HttpPolicy, post_json
from git_teddy.llm.prices import cost_of
from git_teddy.settings import Settings
from git_teddy.ui import UI

if TYPE_CHECKING:
    import requests

OPENAI_URL = "https://api.openai.com/v1"


@dataclass
class _Reply:
    parts: list[str] = field(default_factory=list)
    model: str | None = None
    usage: dict[str, Any] | None = None


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
        reply = post_json(self.endpoint, body, self.policy, self._read, stream=True)
        usage = reply.usage or {}
        tokens_in, tokens_out = usage.get("prompt_tokens"), usage.get("completion_tokens")
        model = reply.model or self.model
        return Completion(
            text="".join(reply.parts),
            model=model,
            provider=self.name,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost=cost_of(self.settings, [self.model, model], tokens_in, tokens_out),
        )

    def _read(self, response: "requests.Response") -> _Reply:
        reply, received = _Reply(), 0
        try:
            for chunk in _events(response, self.endpoint):
                reply.model = chunk.get("model") or reply.model
                reply.usage = chunk.get("usage") or reply.usage
                for choice in chunk.get("choices") or []:
                    text = (choice.get("delta") or {}).get("content") or ""
                    reply.parts.append(text)
                    received += len(text)
                self.ui.status(f"{self.name} {self.model}: {received} characters")
        finally:
            if received:
                self.ui.end_status()
        return reply


def _events(response: "requests.Response", endpoint: Endpoint) -> Iterator[dict[str, Any]]:
    """The JSON chunks of a server-sent event stream, up to `data: [DONE]`.

    A server that answers a streaming request with one plain JSON completion is accepted too.
    """
    if "text/event-stream" not in response.headers.get("Content-Type", ""):
        data = _json(response.text, endpoint)
        for choice in data.get("choices") or []:
            choice["delta"] = choice.get("message") or {}
        yield data
        return
    for line in response.iter_lines(decode_unicode=False):
        if not line.startswith(b"data:"):
            continue  # blank separators, comments, `event:` lines
        payload = line[5:].strip().decode("utf-8")
        if payload == "[DONE]":
            return
        chunk = _json(payload, endpoint)
        if "error" in chunk:
            raise endpoint.error(
                f"{endpoint.provider} failed while answering: {chunk['error']}",
                "try again later",
            )
        yield chunk


def _json(text: str, endpoint: Endpoint) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ProviderError(
            f"{endpoint.url} did not answer like an OpenAI-compatible API: {text[:200]!r}",
            "check `git config teddy.baseUrl` (it usually ends in /v1)",
        )
    return data
