"""The `Idempotency-Key` header the gateway's retryable writes take, one spelling for each.

The header is a Structured Field string (draft-ietf-httpapi-idempotency-key-header): printable
ASCII only. HTTP gives a header's other bytes no agreed text, and the server read them as
Latin-1, so a key `é` was kept as `Ã©`, and a retry that sent the same key in the body did
not match it. Such a key is refused with 422 instead, by its name, and nothing is sent on; an
id with other characters goes in the body (`command_id`, `client_message_id`), which is JSON.

The key may come as the draft writes it, quoted (`"8e03978e"`, with `\\"` and `\\\\` escapes), or
bare as most APIs take it (`8e03978e`); both are the key `8e03978e`. A quoted key was kept with
its quotes, so a retry that sent the same id in the body was refused as another key.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Header, Request
from pydantic import BeforeValidator, StringConstraints
from pydantic_core import PydanticCustomError

from baton_contracts import ErrorDetail
from baton_contracts.ids import in_words
from baton_notifier.domain.errors import ApiError
from baton_notifier.domain.origins import IDEMPOTENCY_KEY

IDEMPOTENCY_KEY_PATTERN = r"^[\x20-\x7e]+$"
"""Printable ASCII, a space included: what a Structured Field string may hold."""


def unquoted(value: object) -> object:
    """A key sent as a Structured Field string (`"k1"`) as the key it holds (`k1`); a bare
    key as it came. A quoted value that is not one string is refused by what is wrong with
    it: two keys (`"k1", "k2"`: the header sent twice and joined by a proxy, RFC 9110 5.3),
    characters after the closing quote, an escape other than `\\"` and `\\\\`, or no
    closing quote."""
    if not isinstance(value, str) or not value.startswith('"'):
        return value
    key: list[str] = []
    i = 1
    while i < len(value):
        char = value[i]
        if char == "\\":
            escaped = value[i + 1 : i + 2]
            if escaped not in ('"', "\\"):
                raise _invalid(
                    'a quoted key escapes only \\" and \\\\ with a backslash, '
                    f"not {(escaped or 'the end')!r}"
                )
            key.append(escaped)
            i += 2
            continue
        if char == '"':
            rest = value[i + 1 :].strip()
            if rest.startswith(","):
                raise _invalid(
                    "holds more than one key (the header sent twice and joined by a proxy?); "
                    "send one Idempotency-Key"
                )
            if rest:
                raise _invalid(f"has {rest!r} after the quoted key; send the key alone")
            return "".join(key)
        key.append(char)
        i += 1
    raise _invalid("opens a quote it does not close; send the key bare, or quoted whole")


def _invalid(why: str) -> PydanticCustomError:
    # The text goes in as context: a template would read a brace in the key as a field.
    return PydanticCustomError("idempotency_key", "{why}", {"why": why})


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
        # Last, so it runs first: the string's own checks, and their words, read the key.
        BeforeValidator(unquoted),
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
        # Last, so it runs first: the string's own checks, and their words, read the key.
        BeforeValidator(unquoted),
    ]
    | None,
    Header(description=f"Makes a retried start one run: {_RUN_MEANING}."),
]
"""A DAG run's start key."""


def one_key(
    request: Request, key: str, body_id: str | None = None, body_field: str | None = None
) -> None:
    """Refuse a request that says its key two ways: the header sent twice (which of the two
    a retry repeats is unknown: the first was taken, the second ignored), or a body id
    (`body_field`) that is another key than the header's, `key` (the body's was taken).
    Either is a 422 naming the field, and nothing is sent on. Called only when the header
    was given."""
    keys = request.headers.getlist("idempotency-key")
    if len(keys) > 1:
        why = f"sent {len(keys)} times; send one Idempotency-Key header"
        detail = ErrorDetail(field=IDEMPOTENCY_KEY, message=why)
        raise ApiError.invalid(f"request is invalid: {IDEMPOTENCY_KEY}: {why}", [detail])
    if body_id is not None and body_field is not None and body_id != key:
        why = "is another key than the Idempotency-Key header's; send the same in both, or one"
        detail = ErrorDetail(field=body_field, message=why)
        raise ApiError.invalid(f"request is invalid: {body_field}: {why}", [detail])
