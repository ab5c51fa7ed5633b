"""Model prices and the integer money unit every store counts in.

Why integers: a spend counter shared by processes and a Lua script must add and compare exactly; floats drift
and Lua numbers are doubles. Amounts are nano-units of the price currency (1e-9), exact up to 2**53 nano (about
9 million currency units a month), and every cost is rounded *up* to the next nano so rounding can only ever
over-count, the one direction a spend cap may err in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

NANO = 10**9  # store units per currency unit
MAX_AMOUNT = 2**53  # exact in a Lua double and in SQLite's INTEGER

Money = Decimal | int | str | float


def to_fraction(value: Money, what: str) -> Fraction:
    """A non-negative exact number from a Decimal, int, str or float (floats via their shortest repr)."""
    try:
        if isinstance(value, bool):
            raise TypeError
        exact = Fraction(Decimal(repr(value)) if isinstance(value, float) else Decimal(value))
    except (InvalidOperation, TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
    if exact < 0:
        raise ValueError(f"{what} must not be negative, got {value!r}")
    return exact


def to_nano(value: Money, what: str) -> int:
    """Currency units to store units, rounded up."""
    nano = math.ceil(to_fraction(value, what) * NANO)
    if nano >= MAX_AMOUNT:
        raise ValueError(f"{what} is too large to count exactly (limit {MAX_AMOUNT // NANO} currency units)")
    return nano


@dataclass(frozen=True)
class Price:
    """What one model charges, in currency units per million tokens. Reasoning tokens bill as output.

    `input` is the full (uncached) prompt price: a cache hit only makes the real cost lower than the bound.
    """

    input: Money
    output: Money

    def __post_init__(self) -> None:
        to_fraction(self.input, "input price")
        to_fraction(self.output, "output price")

    def cost(self, input_tokens: int, output_tokens: int) -> int:
        """The cost of these token counts in nano-units, rounded up."""
        per_token = Fraction(NANO, 10**6)
        exact = per_token * (
            to_fraction(self.input, "input price") * input_tokens
            + to_fraction(self.output, "output price") * output_tokens
        )
        return math.ceil(exact)


PriceSpec = Price | tuple[Money, Money]


def price_table(prices: Mapping[str, PriceSpec]) -> dict[str, Price]:
    """Normalize `{"model": Price(...) or (input, output)}`; `"*"` is the price of any model not listed."""
    if not prices:
        raise ValueError("prices must name at least one model (or '*')")
    table: dict[str, Price] = {}
    for model, spec in prices.items():
        table[model] = spec if isinstance(spec, Price) else Price(*spec)
    return table


def price_of(table: Mapping[str, Price], model: str) -> Price:
    """The price of `model`; a model with no price is a configuration error, never a free call."""
    found = table.get(model) or table.get("*")
    if found is None:
        raise ValueError(f"no price for model {model!r}: add it (or a '*' entry) to the SpendCap's prices")
    return found


def from_nano(amount: int) -> Decimal:
    """Store units back to currency units, for reports."""
    return Decimal(amount) / NANO
