"""The `Idempotency-Key` header the gateway's retryable writes take, one spelling for each.

The header is a Structured Field string (draft-ietf-httpapi-idempotency-key-header): printable
ASCII only. HTTP gives a header's other bytes no agreed text, and the server read them as
Latin-1, so a key `é` was kept as `Ã©`, and a retry that sent the same key in the body did
not match it. Such a key is refused with 422 instead, by its name, and nothing is sent on; an
id with other characters goes in the body (`command_id`, `client_message_id`), which is JSON.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Header
from pydantic import StringConstraints

from baton_contracts.ids import in_words

IDEMPOTENCY_KEY_PATTERN = r"^[\x20-\x7e]+$"
"""Printable ASCII, a space included: what a Structured Field string may hold."""

_TURN_MEANING = (
    "an Idempotency-Key is 1 to 128 printable ASCII characters; send an id with other "
    "characters in the body"
)
_RUN_MEANING = "an Idempotency-Key is 1 to 200 printable ASCII characters"

TurnKey = Annotated[
    Annotated[
        str,
        StringConstraints(min_length=1, max_length=128, pattern=IDEMPOTENCY_KEY_PATTERN),
        in_words(_TURN_MEANING),
    ]
    | None,
    Header(description=f"Makes a retry count once: {_TURN_MEANING}."),
]
"""A signal's or a message's key: the body's `command_id` or `client_message_id`, when given,
comes first."""

RunKey = Annotated[
    Annotated[
        str,
        StringConstraints(min_length=1, max_length=200, pattern=IDEMPOTENCY_KEY_PATTERN),
        in_words(_RUN_MEANING),
    ]
    | None,
    Header(description=f"Makes a retried start one run: {_RUN_MEANING}."),
]
"""A DAG run's start key."""
