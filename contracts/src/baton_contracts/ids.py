"""Ids and names a pattern checks, each type saying in words what its pattern asks.

Pydantic's own refusal quotes the regex (`string should match pattern '^[A-Za-z0-9_-]...'`),
which a caller has to decode. The words travel with the type, not in a table keyed by the
regex: a run id and an instance id share one pattern, and each must still be called by its
own name.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import StringConstraints, ValidationError, ValidatorFunctionWrapHandler, WrapValidator
from pydantic_core import PydanticCustomError

from baton_contracts.dag_base import (
    MAX_WORKFLOW_NAME_CHARS,
    RUN_ID_PATTERN,
    VERSION_ID_PATTERN,
    WORKFLOW_NAME_PATTERN,
)

PATTERN_MISMATCH = "string_pattern_mismatch"
"""Pydantic's error type for a missed pattern, kept so a reader of `errors()` sees the same."""


def in_words(meaning: str) -> WrapValidator:
    """Metadata for an `Annotated` string with a pattern: a missed pattern says `meaning`.

    Put after the constraint it words (`Annotated[str, StringConstraints(pattern=p),
    in_words(...)]`), so pydantic still checks the pattern, with its own regex engine, and
    the JSON schema and OpenAPI document still show it.
    """

    def reword(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError as exc:
            missed = [e for e in exc.errors() if e["type"] == PATTERN_MISMATCH]
            if not missed:
                raise
            pattern = (missed[0].get("ctx") or {}).get("pattern", "")
            # The meaning goes in as context, so a brace in it is never read as a placeholder.
            context = {"meaning": meaning, "pattern": pattern}
            raise PydanticCustomError(PATTERN_MISMATCH, "{meaning}", context) from None

    return WrapValidator(reword)


WORKFLOW_NAME_MEANING = (
    f"a workflow name is 1 to {MAX_WORKFLOW_NAME_CHARS} letters, digits, '-' or '_'"
)
VERSION_ID_MEANING = (
    "a version id is <name>@<version>, the version a whole number from 1 to 999,999,999 "
    "(my-workflow@2)"
)
RUN_ID_MEANING = "a run id is 1 to 64 letters, digits, '-' or '_'"

INSTANCE_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
"""A conversation instance's id as routes take it (Baton makes 32 hex digits); the same
regex as `RUN_ID_PATTERN`, which is why the words are not looked up by it."""
INSTANCE_ID_MEANING = "an instance id is 1 to 64 letters, digits, '-' or '_'"

PROJECT_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
"""A project's id as a token's `project_id` claim carries it: the same form as a run id."""
PROJECT_ID_MEANING = "a project id is 1 to 64 letters, digits, '-' or '_'"

CATEGORY_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
"""A memory category as the gateway takes it (the agents write `priorities`)."""
CATEGORY_MEANING = "a category is 1 to 64 letters, digits, '-' or '_'"

WorkflowName = Annotated[
    str, StringConstraints(pattern=WORKFLOW_NAME_PATTERN), in_words(WORKFLOW_NAME_MEANING)
]
VersionId = Annotated[
    str, StringConstraints(pattern=VERSION_ID_PATTERN), in_words(VERSION_ID_MEANING)
]
RunId = Annotated[str, StringConstraints(pattern=RUN_ID_PATTERN), in_words(RUN_ID_MEANING)]
InstanceId = Annotated[
    str, StringConstraints(pattern=INSTANCE_ID_PATTERN), in_words(INSTANCE_ID_MEANING)
]
ProjectId = Annotated[
    str, StringConstraints(pattern=PROJECT_ID_PATTERN), in_words(PROJECT_ID_MEANING)
]
Category = Annotated[str, StringConstraints(pattern=CATEGORY_PATTERN), in_words(CATEGORY_MEANING)]
