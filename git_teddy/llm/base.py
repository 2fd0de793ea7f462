"""The provider interface: a system prompt and a conversation in, one completion out."""

from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from git_teddy.errors import TeddyError


class ChatMessage(BaseModel):
    model_config = ConfigDict(defer_build=True)

    role: Literal["user", "assistant"]
    content: str


class Completion(BaseModel):
    model_config = ConfigDict(defer_build=True)

    text: str
    model: str
    provider: str
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None  # USD, None when the price or the usage is unknown
    truncated: bool = False  # cut off at the output limit (finish_reason length, max_tokens)
    tokens_counted: bool = False  # the tokens were counted here: the provider reported none


class ProviderError(TeddyError):
    """A model call that failed for a reason the user can see and fix (key, URL, model...)."""


def token_count(value: object) -> int | None:
    """A usage figure as the APIs document it (a whole number of 0 or more), else unknown."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


class Provider(Protocol):
    name: str  # "openai" | "anthropic" | "manual" | "replay" | "llm"
    model: str  # the model id, or "manual" / "replay"

    def complete(self, system: str, messages: list[ChatMessage]) -> Completion: ...
