"""Commit messages with `Teddy-*` trailers (pure), readable by `git interpret-trailers`."""

import re

TRAILER_ORDER = (
    "Teddy-Session",
    "Teddy-Turn",
    "Teddy-Id",
    "Teddy-Parent-Id",
    "Teddy-Agent",
    "Teddy-Model",
    "Teddy-Phase",
    "Teddy-Status",
    "Teddy-Snapshot",
    "Teddy-Tokens-In",
    "Teddy-Tokens-Out",
    "Teddy-Cost",
    "Teddy-Redacted",
)
TRAILER_LINE = re.compile(r"([A-Za-z0-9-]+): (.*)")


def format_message(subject: str, trailers: dict[str, str], body: str = "") -> str:
    """Subject, optional body, then the trailers in a fixed order (empty values left out)."""
    known = [key for key in TRAILER_ORDER if trailers.get(key)]
    extra = sorted(key for key in trailers if key not in TRAILER_ORDER and trailers[key])
    lines = [f"{key}: {_one_line(trailers[key])}" for key in known + extra]
    parts = [_one_line(subject)] + ([body.strip()] if body.strip() else []) + ["\n".join(lines)]
    return "\n\n".join(parts) + "\n"


def parse_trailers(message: str) -> dict[str, str]:
    """The trailers of the message's last paragraph (as `git interpret-trailers --parse`)."""
    paragraphs = message.strip().split("\n\n")
    if len(paragraphs) < 2:
        return {}
    trailers: dict[str, str] = {}
    for line in paragraphs[-1].splitlines():
        match = TRAILER_LINE.fullmatch(line.strip())
        if match:
            trailers[match[1]] = match[2]
    return trailers


def _one_line(text: str) -> str:
    return " ".join(text.split())
