"""What a fresh agent-runner loads at start, not on its first request.

PydanticAI prices every model response from genai-prices' bundled table, and loads that table
on the first response it prices: about a quarter of a second of imports on a 2-core host, and
more under load. Paid by the first chat turn or DAG step after every start, it was a turn that
sometimes missed its agent timeout: a step with a 0.1 s timeout never reached its model. It is
paid here instead, before the service takes requests.
"""

from __future__ import annotations

from genai_prices.data_snapshot import get_snapshot


def load_price_table() -> None:
    """Load the model price table PydanticAI reads on each response (cached for the process)."""
    get_snapshot()
