"""A command's `user_id` takes one spelling of a name: the NFC form, never a look-alike.

`\u00e9` (one code point) and `e` + U+0301 (two) look the same in logs and the console but
are different subject tokens: a command for each acted for two users, so one person could
end up with two sets of data, or a crafted id pass for someone else's.
"""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from baton_contracts import ids
from baton_contracts.workflow_api import StartWorkflow

NFC = "ren\u00e9"
NFD = "rene\u0301"


def test_a_command_for_a_user_id_in_nfc_is_taken() -> None:
    assert StartWorkflow(user_id=NFC, workflow_id="onboarding").user_id == NFC


def test_a_command_for_a_decomposed_user_id_is_refused_naming_the_field_and_the_form() -> None:
    with pytest.raises(ValidationError) as refused:
        StartWorkflow(user_id=NFD, workflow_id="onboarding")
    [error] = refused.value.errors()
    assert error["loc"] == ("user_id",)
    assert "normal form C (NFC)" in error["msg"] and "send the NFC form" in error["msg"]


@pytest.mark.parametrize("project", ["p1", "team_a-2", "x" * 64])
def test_a_project_id_of_letters_digits_dash_underscore_is_taken(project: str) -> None:
    assert TypeAdapter(ids.ProjectId).validate_python(project) == project


@pytest.mark.parametrize("project", ["", "a.b", "a b", "x" * 65, "caf\u00e9"])
def test_any_other_project_id_is_refused_in_words(project: str) -> None:
    with pytest.raises(ValidationError) as refused:
        TypeAdapter(ids.ProjectId).validate_python(project)
    [error] = refused.value.errors()
    assert error["msg"] == "a project id is 1 to 64 letters, digits, '-' or '_'"
