"""Approximate list prices in USD per million tokens, as of 2026, for cost figures only.

They drift: `git config teddy.price.<model>.input 2.5` (and `.output`) overrides a row or
adds a model. A model with no known price gets no cost rather than a wrong one.
"""

from git_teddy.settings import Settings

# model: (input, output) USD per million tokens, approximate, as of 2026.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "o3": (2.00, 8.00),
    "o4-mini": (1.10, 4.40),
    "claude-opus-4-5": (5.00, 25.00),
    "claude-opus-4-1": (15.00, 75.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-3-5-haiku": (0.80, 4.00),
}


def table_price(model: str) -> tuple[float, float] | None:
    """The row for `model`, or for the longest name it extends with `-...` (dated snapshots
    such as `gpt-4o-2024-08-06` or `claude-sonnet-4-5-20250929`)."""
    if model in PRICES:
        return PRICES[model]
    bases = [name for name in PRICES if model.startswith(name + "-")]
    return PRICES[max(bases, key=len)] if bases else None


def price_of(settings: Settings, model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens: git config first, then the table."""
    known = table_price(model)
    price_in = settings.price(model, "input")
    price_out = settings.price(model, "output")
    if price_in is None:
        price_in = known[0] if known else None
    if price_out is None:
        price_out = known[1] if known else None
    if price_in is None or price_out is None:
        return None
    return price_in, price_out


def cost_of(
    settings: Settings, models: list[str], tokens_in: int | None, tokens_out: int | None
) -> float | None:
    """The cost of one call, priced as the first of `models` with a known price."""
    if tokens_in is None or tokens_out is None:
        return None
    for model in models:
        price = price_of(settings, model)
        if price is not None:
            return (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000
    return None
