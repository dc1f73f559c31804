"""Dry-run estimates: tokens from text length and USD from a per-model price table."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from baton_contracts.money import dollars, usd

SHOWN_PLACES = 4
"""The decimal places of a sum in a step's text (a dry-run estimate, a budget stop), as the
CLI prints a cost; a smaller sum gets the places that show its first two digits."""


def shown(amount: float) -> str:
    """`amount` as a step's text says it: `$0.0021`, and `$0.000031` rather than `$0.0000`."""
    return dollars(amount, SHOWN_PLACES)


def estimate_tokens(text: str) -> int:
    """A rough token count: one token per four characters, rounded up."""
    return math.ceil(len(text) / 4)


class ModelPrice(BaseModel):
    """USD per 1,000 input and output tokens for one model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_1k: float = Field(default=0.0, ge=0)
    output_per_1k: float = Field(default=0.0, ge=0)


@dataclass(frozen=True, slots=True)
class Estimate:
    """What one agent call is expected to use and cost."""

    model: str
    tokens_in: int
    tokens_out: int
    cost_usd: float


class PricingTable(BaseModel):
    """Prices by model name, a default for unknown models, and the output size to assume."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    default: ModelPrice = Field(default_factory=ModelPrice)
    default_model: str = "default"
    output_tokens: int = Field(default=500, ge=0)

    def price_for(self, model: str | None) -> ModelPrice:
        """The model's price, or the default one."""
        return self.prices.get(model or self.default_model, self.default)

    def estimate(self, model: str | None, text: str) -> Estimate:
        """Tokens in from `text`, tokens out as configured, and their cost for `model`."""
        price = self.price_for(model)
        tokens_in = estimate_tokens(text)
        cost = usd(
            (tokens_in * price.input_per_1k + self.output_tokens * price.output_per_1k) / 1000
        )
        return Estimate(model or self.default_model, tokens_in, self.output_tokens, cost)
