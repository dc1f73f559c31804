"""A signal's `data` and `shared`: JSON objects every store keeps as they came, within limits."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, GetJsonSchemaHandler, RootModel, TypeAdapter, ValidationError
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, InitErrorDetails, PydanticCustomError

from baton_contracts.storable import NUL_FREE_PATTERN, NulFreeInSchema, first_unstorable

MAX_SIGNAL_DATA_BYTES = 64 * 1024
"""`data` of a signal above this size is refused with `too_large` (HTTP 413)."""

MAX_CONTEXT_PART_BYTES = 256 * 1024
"""An instance's step data (all its steps') and its `shared`, each, may not grow past this by
a signal (`too_large`, HTTP 413): every reply and agent request carries them, and NATS carries
at most 1 MiB a message, so an instance grown past it could no longer be read or talked to."""

STEP_RECORD_KEYS = frozenset({"started_at", "completed_at", "messages", "forced", "warning"})
"""What the workflow service itself keeps in a step's `step_data` (seed 000 §5 puts a step's
own record and the data its signals merge side by side): a signal's `data` may not set them.
A person's signal naming one is refused (`invalid`, HTTP 422); an agent's has them left out.
"""

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
        # Not a ValueError, which pydantic words "Value error, nests ...": the user saw that.
        limit = MAX_SIGNAL_DATA_DEPTH
        problem = f"nests more than {limit} levels deep; the limit is {limit}"
        raise PydanticCustomError("too_deep", problem)
    error = PydanticCustomError("unstorable", found.problem)
    line = InitErrorDetails(type=error, loc=found.loc, input=value)
    raise ValidationError.from_exception_data("SignalData", [line])


class _KeysNulFree:
    """States in a JSON object's schema that its keys hold no NUL (`propertyNames`)."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {**handler(core_schema), "propertyNames": {"pattern": NUL_FREE_PATTERN}}


class SignalValue(
    RootModel[
        Annotated[str, NulFreeInSchema]
        | float
        | bool
        | list["SignalValue"]
        | Annotated[dict[str, "SignalValue"], _KeysNulFree]
        | None
    ]
):
    """A JSON value in a signal's `data` or `shared`: no string or key holds a NUL (U+0000)."""


# Only the JSON schema reads these: values are checked by `_storable`, and NUL, by the workflow
# service (`signal.data.<path>`), which is why `SignalData` itself stays `dict[str, Any]`.
_SignalObject = Annotated[dict[str, SignalValue], _KeysNulFree]
_DOCUMENTED = TypeAdapter(_SignalObject).core_schema


class _StoredAsSent:
    """The JSON schema of `SignalData`: an object whose strings and keys, at any depth, hold
    no NUL (U+0000), which the workflow service refuses by its path, as no store keeps one."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        depth = MAX_SIGNAL_DATA_DEPTH
        return {
            **handler(_DOCUMENTED),
            "description": f"A JSON object, nested at most {depth} levels deep; no string "
            "or key in it may hold a NUL character (U+0000)",
        }


SignalData = Annotated[dict[str, Any], AfterValidator(_storable), _StoredAsSent]
"""A signal's `data` or `shared`: a JSON object at most `MAX_SIGNAL_DATA_DEPTH` levels deep,
with no NaN or infinite number (and, checked by the workflow service, no NUL)."""
