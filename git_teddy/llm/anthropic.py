"""The Anthropic Messages API, not streamed: one JSON answer with the text and the usage.

The UI's status line says that the model is being waited for (there is no count to show).
A reply cut off at `max_tokens` (`stop_reason: "max_tokens"`) is marked `truncated`; an
answer that is not the API's shape (wrong types, not JSON) is a ProviderError.
"""

import json
from dataclasses import dataclass
from typing import Any

from git_teddy.llm.base import ChatMessage, Completion, token_count
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
        }
        self.ui.status(f"{self.name} {self.model}: waiting for the reply")
        self.ui.end_status()
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
        content = answer.content()
        try:
            data = json.loads(content)
        except ValueError:  # not JSON, or not UTF-8
            data = content.decode("utf-8", "replace")
        problem = _shape_problem(data)
        if problem is not None:
            raise self.endpoint.error(
                f"{self.endpoint.url} did not answer like the Anthropic Messages API: {problem}",
                "check `git config teddy.baseUrl` (the default is https://api.anthropic.com)",
            )
        assert isinstance(data, dict)
        return data


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
