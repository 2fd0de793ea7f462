"""The Anthropic Messages API, not streamed: one JSON answer with the text and the usage.

The UI's status line says that the model is being waited for (there is no count to show).
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from git_teddy.llm.base import ChatMessage, Completion, ProviderError
from git_teddy.llm.http import Endpoint, HttpPolicy, post_json
from git_teddy.llm.prices import cost_of
from git_teddy.settings import MAX_TOKENS, Settings
from git_teddy.ui import UI

if TYPE_CHECKING:
    import requests

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
        text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        usage = data.get("usage") or {}
        tokens_in, tokens_out = usage.get("input_tokens"), usage.get("output_tokens")
        model = data.get("model") or self.model
        return Completion(
            text=text,
            model=model,
            provider=self.name,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost=cost_of(self.settings, [self.model, model], tokens_in, tokens_out),
        )

    def _read(self, response: "requests.Response") -> dict[str, Any]:
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("content", []), list):
            raise ProviderError(
                f"{self.endpoint.url} did not answer like the Anthropic Messages API: "
                f"{response.text[:200]!r}",
                "check `git config teddy.baseUrl` (the default is https://api.anthropic.com)",
            )
        return data
