"""Models' context windows (pure): a table of known models, and what to say when a request
does not fit one. Like prices.py, approximate public figures; `teddy.contextWindow` says
better for any model, and is the only word for a local one (Ollama serves whatever window it
was started with, OLLAMA_CONTEXT_LENGTH, and cuts what overflows without an error)."""

from urllib.parse import urlsplit

# Model id prefixes and their windows in tokens; the longest matching prefix wins.
KNOWN_WINDOWS: dict[str, int] = {
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "gpt-5": 400_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "claude-": 200_000,
    "gemini-1.5": 1_048_576,
    "gemini-2": 1_048_576,
    "llama3.1": 131_072,
    "llama3.2": 131_072,
    "llama3.3": 131_072,
    "llama3": 8_192,
    "qwen2.5": 32_768,
    "qwen3": 40_960,
    "mistral": 32_768,
    "deepseek-r1": 131_072,
    "deepseek-coder-v2": 163_840,
}
OLLAMA_PORT = 11434
SHOWN_ENTRIES = 3  # the biggest entries the error names


def known_window(model: str) -> int | None:
    """The window of `model` from the table (an Ollama tag such as `llama3.1:8b` included)."""
    name = model.lower().rsplit("/", 1)[-1]
    matches = [prefix for prefix in KNOWN_WINDOWS if name.startswith(prefix)]
    return KNOWN_WINDOWS[max(matches, key=len)] if matches else None


def is_ollama(base_url: str) -> bool:
    """Whether a base URL looks like an Ollama server: its port, or its native `/api`."""
    try:
        parts = urlsplit(base_url)
        port = parts.port
    except ValueError:
        return False
    return port == OLLAMA_PORT or parts.path.rstrip("/").endswith("/api") or "/api/" in parts.path


def over_window(
    request: int, window: int, source: str, entries: list[tuple[str, int]]
) -> tuple[str, str]:
    """The error and hint for a request of `request` tokens over a window of `window`
    (`source`: where the window comes from), naming the biggest of `entries` (name, tokens)
    to PRUNE or drop."""
    biggest = sorted(entries, key=lambda entry: -entry[1])[:SHOWN_ENTRIES]
    named = ", ".join(f"{name} ({tokens:,} tokens)" for name, tokens in biggest)
    message = (
        f"the request is {request:,} tokens, over the model's context window of {window:,} "
        f"({source}): the model would not see all of it"
    )
    hint = (
        f"drop the biggest entries from the context (`git teddy drop ENTRY`, or a PRUNE in "
        f"the next plan): {named}; or set teddy.contextWindow if the model's window is larger"
        if biggest
        else "shorten the message, or set teddy.contextWindow if the model's window is larger"
    )
    return message, hint


def ollama_warning(request: int) -> str:
    return (
        f"warning: an Ollama endpoint cuts a request beyond its context length without an "
        f"error (a few thousand tokens unless OLLAMA_CONTEXT_LENGTH is set); this request is "
        f"{request:,} tokens: start Ollama with OLLAMA_CONTEXT_LENGTH={_round_up(request)} or "
        f"more, and set teddy.contextWindow to the same number"
    )


def _round_up(tokens: int) -> int:
    """The next power of two at or above `tokens` + a reply's room, as Ollama users pick."""
    size = 4096
    while size < tokens + 4096:
        size *= 2
    return size
