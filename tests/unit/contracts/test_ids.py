"""A value that misses an id's pattern is told what the id should be in words, by its own name.

The words were once looked up by the regex's text, so two ids sharing one regex (a run id and
an instance id) could only ever have one set of words between them.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

import pytest
from pydantic import StringConstraints, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from baton_contracts import ids
from baton_contracts.catalog import REGISTRY
from baton_contracts.dag_api import RUN_ID_PATTERN


def _message(annotation: Any, value: Any) -> str:
    with pytest.raises(ValidationError) as refused:
        TypeAdapter(annotation).validate_python(value)
    [error] = refused.value.errors()
    return str(error["msg"])


def test_two_ids_sharing_one_regex_each_say_their_own_name() -> None:
    assert ids.INSTANCE_ID_PATTERN == RUN_ID_PATTERN  # the case a table keyed by regex got wrong
    assert _message(ids.RunId, "a.b") == "a run id is 1 to 64 letters, digits, '-' or '_'"
    instance = _message(ids.InstanceId, "a.b")
    assert instance == "an instance id is 1 to 64 letters, digits, '-' or '_'"


@pytest.mark.parametrize(
    ("annotation", "fits", "misses"),
    [
        (ids.WorkflowName, "my-workflow", "my workflow"),
        (ids.VersionId, "my-workflow@2", "my-workflow@0"),
        (ids.RunId, "a" * 64, "a" * 65),
        (ids.InstanceId, "i1", "i1\n"),  # a final newline, which a Python `$` would let in
    ],
)
def test_an_id_type_still_checks_its_pattern(annotation: Any, fits: str, misses: str) -> None:
    assert TypeAdapter(annotation).validate_python(fits) == fits
    with pytest.raises(ValidationError) as refused:
        TypeAdapter(annotation).validate_python(misses)
    [error] = refused.value.errors()
    assert error["type"] == "string_pattern_mismatch"


def test_the_words_do_not_hide_other_problems() -> None:
    assert _message(ids.RunId, 5) == "Input should be a valid string"


def test_a_brace_in_the_words_is_kept_as_written() -> None:
    braced = Annotated[str, StringConstraints(pattern="^a$"), ids.in_words("a {literal}")]
    assert _message(braced, "b") == "a {literal}"


def _adapter(field: FieldInfo) -> TypeAdapter[Any]:
    """The field's type with its constraints, to validate one value on its own."""
    if not field.metadata:
        return TypeAdapter(field.annotation)
    return TypeAdapter(Annotated[field.annotation, *field.metadata])


def _patterned_fields() -> list[tuple[str, FieldInfo, str]]:
    found = []
    for model in REGISTRY:
        for name, field in model.model_fields.items():
            schema = _adapter(field).json_schema()
            options = schema.get("anyOf", [schema])
            for pattern in (option.get("pattern") for option in options):
                if pattern:
                    found.append((f"{model.__name__}.{name}", field, pattern))
    return found


PATTERNED = _patterned_fields()


@pytest.mark.parametrize(("where", "field", "pattern"), PATTERNED, ids=[w for w, _, _ in PATTERNED])
def test_no_contract_field_quotes_its_regex_to_a_caller(
    where: str, field: FieldInfo, pattern: str
) -> None:
    # Every message a service refuses names its problem; none may be a regex to decode.
    # A text that only may not hold a NUL (`NulFreeText`) takes "!": it is given a NUL.
    value = next(v for v in ("!", "a\u0000") if not re.search(pattern, v))
    try:
        _adapter(field).validate_python(value)
    except ValidationError as refused:
        assert all(pattern not in str(e["msg"]) for e in refused.errors()), where
    else:
        pytest.fail(f"{where} took {value!r}")


def test_the_contract_fields_with_a_pattern_are_all_found() -> None:
    # The guard above must see something, or it cannot fail.
    assert len(PATTERNED) >= 10
