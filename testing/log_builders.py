"""Session log pieces built in tests (shared by the codify and learn tests)."""

from git_teddy.artifacts.sessionlog.model import Phase
from testing.sealed import FIXED_DATE


def phase(
    turn: str, title: str, *blocks: object, agent: str = "dev@1.0", model: str | None = None
) -> Phase:
    """A successful phase in channel `web` at the fixed test date."""
    return Phase.model_validate(
        {
            "title": title,
            "agent": agent,
            "channel": "web",
            "turn": turn,
            "time": FIXED_DATE,
            "status": "success",
            "model": model,
            "blocks": list(blocks),
        }
    )
