"""A token names its user in one spelling (NFC) and its project in the form of other ids.

`\u00e9` and `e` + U+0301 look alike but were two users; a `project_id` of any form (a dot,
a space, a number) was carried into every command and `/api/me` as it came.
"""

from __future__ import annotations

import jwt
import pytest

from baton_auth import InvalidToken, TokenRefusal, mint_token, user_id_problem, verify_token

SECRET = "s" * 32
NFC = "ren\u00e9"
NFD = "rene\u0301"


def _signed(**claims: object) -> str:
    return jwt.encode({"iss": "baton", "exp": 4102444800, **claims}, SECRET, algorithm="HS256")


def test_a_user_id_in_nfc_is_taken_and_its_decomposed_look_alike_is_refused() -> None:
    assert user_id_problem(NFC) is None
    problem = user_id_problem(NFD)
    assert problem is not None
    assert "normal form C (NFC)" in problem and problem.endswith("use the NFC form 'ren\\xe9'")


def test_minting_for_a_decomposed_user_id_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match=r"^user_id must be in Unicode normal form C \(NFC\)"):
        mint_token(SECRET, NFD)
    assert verify_token(SECRET, mint_token(SECRET, NFC)).user_id == NFC


def test_a_token_naming_a_decomposed_user_is_refused_naming_the_claim() -> None:
    with pytest.raises(InvalidToken) as refused:
        verify_token(SECRET, _signed(sub=NFD))
    assert str(refused.value).startswith("token's user (claim 'sub') must be in Unicode normal")
    assert "use the NFC form" in str(refused.value)
    assert refused.value.reason is TokenRefusal.INVALID_CLAIM


@pytest.mark.parametrize("project", ["a.b", "", "a b", "x" * 65, 7, ["p1"], "p1\n"])
def test_a_token_with_a_project_id_not_of_the_id_form_is_refused_naming_the_claim(
    project: object,
) -> None:
    with pytest.raises(InvalidToken) as refused:
        verify_token(SECRET, _signed(sub="alice", project_id=project))
    assert str(refused.value) == (
        "token's project (claim 'project_id') is not a project id "
        "(a project id is 1 to 64 letters, digits, '-' or '_')"
    )
    assert refused.value.reason is TokenRefusal.INVALID_CLAIM


@pytest.mark.parametrize("project", ["p1", "team_a-2", None])
def test_a_token_with_a_project_id_of_the_id_form_or_none_is_taken(project: str | None) -> None:
    assert verify_token(SECRET, _signed(sub="alice", project_id=project)).project_id == project


def test_minting_with_a_project_id_not_of_the_id_form_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match=r"^project_id is not a project id"):
        mint_token(SECRET, "alice", project_id="a.b")
