"""`turn.yaml`, the turn record (pure): who planned a turn, from which snapshot, what it cost,
and how it ended; its `Teddy-*` trailers are derived from it."""

from decimal import Decimal

import yaml
from pydantic import BaseModel, ConfigDict, field_validator

from git_teddy.artifacts.yamlio import load_model

COST_DECIMALS = 10  # USD; prices per million tokens have at most a few decimals


def decimal_text(value: float) -> str:
    """`value` as a plain decimal (0.0003777, 0.00001), never `1e-05` or float noise."""
    text = format(Decimal(repr(round(value, COST_DECIMALS))), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


class TurnRecord(BaseModel):
    """`turn.yaml`: what a turn is, beside its files."""

    model_config = ConfigDict(defer_build=True)

    id: str
    parent_id: str | None
    session: str
    turn: str
    branch: str
    agent: str
    agent_stack: list[str] = []  # agents that invoked this one and wait for a CONCLUDE
    model: str | None = None
    status: str = "planned"
    base_snapshot: str
    snapshot: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None
    tokens_counted: bool = False  # counted by git-teddy: the provider reported no usage
    planned_at: str
    executed_at: str | None = None
    redactions: list[dict[str, object]] = []  # secrets kept out of the plan commit, and where

    @field_validator("cost")
    @classmethod
    def _rounded(cls, cost: float | None) -> float | None:
        # A sum of per-call costs carries float noise (0.00037769999999999997); a
        # nano-dollar is far below any price's precision.
        return None if cost is None else round(cost, COST_DECIMALS)

    def to_yaml(self) -> bytes:
        data = self.model_dump()
        if not data["tokens_counted"]:
            del data["tokens_counted"]  # reported by the provider, or none: as before the key
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode()

    @classmethod
    def from_yaml(cls, data: bytes) -> "TurnRecord":
        """The record `data` holds; yamlio.Unreadable saying why when it is not one."""
        return load_model(cls, data)

    def trailers(self, phase: str) -> dict[str, str]:
        values = {
            "Teddy-Session": self.session,
            "Teddy-Turn": self.turn,
            "Teddy-Id": self.id,
            "Teddy-Parent-Id": self.parent_id,
            "Teddy-Agent": self.agent,
            "Teddy-Model": self.model,
            "Teddy-Phase": phase,
            "Teddy-Status": self.status,
            "Teddy-Snapshot": self.snapshot if phase == "report" else None,
            "Teddy-Tokens-In": self.tokens_in,
            "Teddy-Tokens-Out": self.tokens_out,
            "Teddy-Cost": None if self.cost is None else decimal_text(self.cost),
        }
        return {key: str(value) for key, value in values.items() if value is not None}


def read_record(data: bytes | None) -> TurnRecord | None:
    """The one reader of turn.yaml: None when there is none; a damaged one (not UTF-8, not
    YAML, too large, aliases, not a record) is yamlio.Unreadable saying why. The readers
    that gather known states pass it over; a command acting on that turn names it
    (SessionStore.read_record)."""
    return None if data is None else TurnRecord.from_yaml(data)
