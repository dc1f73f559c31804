"""An area said to be someone or something of the user's keeps that as its fact, as after
"means" or a colon: "family is my wife and kids" was kept whole (found by a probe)."""

from __future__ import annotations

import pytest

from .turns import discovery


@pytest.mark.parametrize(
    ("message", "facts"),
    [("family is my wife and kids", {"relationships": "my wife and kids"}),
     ("hobbies are my guitar and chess", {"hobbies": "my guitar and chess"}),
     ("work, health, family is my wife and kids",
      {"work": "work", "health": "health", "relationships": "my wife and kids"})],
)  # fmt: skip
def test_what_an_area_is_of_the_users_is_its_fact(message: str, facts: dict[str, str]) -> None:
    assert discovery(message).extracted_data == {"facts": facts}


@pytest.mark.parametrize(
    "message",
    ["work is my life", "family is my top priority", "family is my everything",
     "work is freelancing now", "my health is kinda bad"],
)  # fmt: skip
def test_how_an_area_goes_or_matters_keeps_the_sentence(message: str) -> None:
    assert list(discovery(message).extracted_data["facts"].values()) == [message]
