"""How an amount of money (a cost, an estimate, a budget's use) is kept: USD as a float rounded
to `USD_PLACES` decimal places.

Floats add with noise: $0.1 + $0.2 is 0.30000000000000004, which passed a $0.3 budget, and a
dry run's twelve estimates were sent as `"cost_usd":0.0050539999999999995`. Every cost that is
priced, summed or sent is therefore rounded by `usd`, so it reads as the decimal it is and a
budget is compared with what was spent. Decimal would say the same, but would change the wire
(pydantic writes a Decimal as a JSON string) and every float price in settings; the rounding
does neither. Ten places (a ten-billionth of a dollar) keep a single token of the cheapest
model's price, and are far past any amount shown (the CLI shows four).

An amount is shown by `dollars`: with the decimal places its reader expects (the CLI four, the
agent-runner's budget refusals six), and more for a smaller amount, so that it never reads as
zero: the scripted model's run of $0.0000314 read `$0.0000` at four.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

USD_PLACES = 10
"""The decimal places a USD amount is kept to."""

MAX_SHOWN_PLACES = 15
"""The most decimal places `dollars` writes, past any amount kept or priced per token."""


def usd(amount: float) -> float:
    """`amount` rounded to `USD_PLACES`: the cost as it is stored, summed, compared and sent."""
    return round(amount, USD_PLACES)


Usd = Annotated[float, AfterValidator(usd)]
"""A USD amount in a message or an event: rounded as `usd` rounds it when the model is built,
so one stored or computed with float noise reads and is sent as its decimal."""


def dollars(amount: float, places: int) -> str:
    """`$` and `amount` with `places` decimals, or as many more as show two significant digits
    of a smaller amount: `$0.0021`, but `$0.000031` for 3.14e-05, where four read `$0.0000`."""
    decimals = places
    while 0 < abs(amount) < 10 ** -(decimals - 1) and decimals < MAX_SHOWN_PLACES:
        decimals += 1
    return f"${amount:.{decimals}f}"
