"""What a turn's caller is told when the turn failed on a store or on its model.

The workflow service quotes the text inside its own (`the greeter agent could not answer
(...); nothing was recorded ...: send the message again ...`), so it says only what failed,
and neither "try again" nor "nothing was recorded": the workflow knows what it recorded, and
says how to retry. Driver and model errors stay in the log: a driver's may quote a statement
and the user's data in it, a model's the request or its answer.
"""

from __future__ import annotations

from baton_agent_runner.service.ports import ModelUnavailable, StoreUnavailable
from baton_eventstore import storage_full

STORES = {
    "memory": "the agent's memory",
    "memory fact lock": "the agent's memory",
    "inbox": "the agent's inbox",
    "replies": "the agent-runner's own database",  # its record of replies and claims
}
"""By `StoreUnavailable.store`: the stores a turn reads and writes."""
SOME_STORE = "the agent's memory or inbox, or the agent-runner's own database"
"""A store call that used more than one of them (the turn's reads, its writes)."""
REASON_CHARS = 160
"""The most of a model's failure a caller is told: a line, not a page of HTML."""


def store_failed(exc: StoreUnavailable) -> str:
    """Which store failed, and how: down, full, or no answer within its time."""
    what = STORES.get(exc.store or "", SOME_STORE)
    if storage_full(exc):  # waiting will not help, freeing space will: say which
        return f"{what} is full (no space left on its disk)"
    if exc.within is not None:
        return f"{what} did not answer within {seconds(exc.within)}"
    return f"{what} is unavailable"


def model_timed_out(limit: float) -> str:
    return f"its model did not answer within {seconds(limit)}"


def model_failed(exc: ModelUnavailable) -> str:
    reason = " ".join((exc.reason or "").split())  # one line: no stack, no newlines
    if len(reason) > REASON_CHARS:
        reason = reason[: REASON_CHARS - 1].rstrip() + "…"
    return f"its model is unavailable: {reason}" if reason else "its model is unavailable"


def seconds(value: float) -> str:
    """`10s`, `2.5s`: a limit as the settings spell it, a deadline's rest to a tenth."""
    return f"{round(value, 1):g}s"
