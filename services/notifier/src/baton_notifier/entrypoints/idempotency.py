"""The `Idempotency-Key` header the gateway's retryable writes take, one spelling for each.

The header is a Structured Field string (draft-ietf-httpapi-idempotency-key-header): printable
ASCII only. HTTP gives a header's other bytes no agreed text, and the server read them as
Latin-1, so a key `é` was kept as `Ã©`, and a retry that sent the same key in the body did
not match it. Such a key is refused with 422 instead, by its name, and nothing is sent on; an
id with other characters goes in the body (`command_id`, `client_message_id`), which is JSON.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Header, Request
from pydantic import StringConstraints

from baton_contracts import ErrorDetail
from baton_contracts.ids import in_words
from baton_notifier.domain.errors import ApiError
from baton_notifier.domain.origins import IDEMPOTENCY_KEY

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


def one_key(request: Request, body_id: str | None = None, body_field: str | None = None) -> None:
    """Refuse a request that says its key two ways: the header sent twice (which of the two
    a retry repeats is unknown: the first was taken, the second ignored), or a body id
    (`body_field`) that is another key than the header's (the body's was taken). Either is
    a 422 naming the field, and nothing is sent on. Called only when the header was given."""
    keys = request.headers.getlist("idempotency-key")
    if len(keys) > 1:
        why = f"sent {len(keys)} times; send one Idempotency-Key header"
        detail = ErrorDetail(field=IDEMPOTENCY_KEY, message=why)
        raise ApiError.invalid(f"request is invalid: {IDEMPOTENCY_KEY}: {why}", [detail])
    if body_id is not None and body_field is not None and body_id != keys[0]:
        why = "is another key than the Idempotency-Key header's; send the same in both, or one"
        detail = ErrorDetail(field=body_field, message=why)
        raise ApiError.invalid(f"request is invalid: {body_field}: {why}", [detail])
