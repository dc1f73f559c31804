"""A signal's `data` and `shared`: JSON objects every store keeps as they came, within limits."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from baton_contracts.storable import first_unstorable

MAX_SIGNAL_DATA_BYTES = 64 * 1024
"""`data` of a signal above this size is refused with `too_large` (HTTP 413)."""

MAX_CONTEXT_PART_BYTES = 256 * 1024
"""An instance's step data (all its steps') and its `shared`, each, may not grow past this by
a signal (`too_large`, HTTP 413): every reply and agent request carries them, and NATS carries
at most 1 MiB a message, so an instance grown past it could no longer be read or talked to."""

MAX_SIGNAL_DATA_DEPTH = 32
"""How deep `data` or `shared` of a signal may nest; deeper is refused with `invalid` (HTTP 422).

Every reply wraps the stored context in a few more levels, and the JSON parsers on the way
stop near 200: data nested that deep, once stored, made every later reply unreadable.
"""


def _storable(value: dict[str, Any]) -> dict[str, Any]:
    """`value`, unless it nests too deep or holds a number JSON has none for (NaN, Infinity),
    which would reach the store as `null`: refused by its path inside the field."""
    if not value:  # most signals carry none: nothing to walk
        return value
    found = first_unstorable(value, max_depth=MAX_SIGNAL_DATA_DEPTH, nul=False)
    if found is None:
        return value
    if found.kind == "depth":
        limit = MAX_SIGNAL_DATA_DEPTH
        raise ValueError(f"nests more than {limit} levels deep; the limit is {limit}")
    error = PydanticCustomError("unstorable", found.problem)
    line = InitErrorDetails(type=error, loc=found.loc, input=value)
    raise ValidationError.from_exception_data("SignalData", [line])


SignalData = Annotated[dict[str, Any], AfterValidator(_storable)]
"""A signal's `data` or `shared`: a JSON object at most `MAX_SIGNAL_DATA_DEPTH` levels deep,
with no NaN or infinite number."""
