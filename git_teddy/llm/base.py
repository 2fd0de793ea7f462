"""The provider interface: a system prompt and a conversation in, one completion out."""

from typing import Literal, Protocol

from pydantic import BaseModel

from git_teddy.errors import TeddyError


class ChatMessage(BaseModel):
    role: Literal["user", "assistant"]
    content: str


class Completion(BaseModel):
    text: str
    model: str
    provider: str
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None  # USD, None when the price or the usage is unknown


class ProviderError(TeddyError):
    """A model call that failed for a reason the user can see and fix (key, URL, model...)."""


class Provider(Protocol):
    name: str  # "openai" | "anthropic" | "manual" | "replay"
    model: str  # the model id, or "manual" / "replay"

    def complete(self, system: str, messages: list[ChatMessage]) -> Completion: ...
