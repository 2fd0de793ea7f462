"""Model providers: one call from a system prompt and a conversation to a completion.

`requests` is imported only when a request is made: the CLI starts without it.
"""

from git_teddy.llm.base import ChatMessage, Completion, Provider, ProviderError
from git_teddy.llm.factory import provider_from_settings

__all__ = [
    "ChatMessage",
    "Completion",
    "Provider",
    "ProviderError",
    "provider_from_settings",
]
