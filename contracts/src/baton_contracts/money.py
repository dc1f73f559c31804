"""How an amount of money (a cost, an estimate, a budget's use) is kept: USD as a float rounded
to `USD_PLACES` decimal places.

Floats add with noise: $0.1 + $0.2 is 0.30000000000000004, which passed a $0.3 budget, and a
dry run's twelve estimates were sent as `"cost_usd":0.0050539999999999995`. Every cost that is
priced, summed or sent is therefore rounded by `usd`, so it reads as the decimal it is and a
budget is compared with what was spent. Decimal would say the same, but would change the wire
(pydantic writes a Decimal as a JSON string) and every float price in settings; the rounding
does neither. Ten places (a ten-billionth of a dollar) keep a single token of the cheapest
model's price, and are far past any amount shown (the CLI shows four).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

USD_PLACES = 10
"""The decimal places a USD amount is kept to."""


def usd(amount: float) -> float:
    """`amount` rounded to `USD_PLACES`: the cost as it is stored, summed, compared and sent."""
    return round(amount, USD_PLACES)


Usd = Annotated[float, AfterValidator(usd)]
"""A USD amount in a message or an event: rounded as `usd` rounds it when the model is built,
so one stored or computed with float noise reads and is sent as its decimal."""
