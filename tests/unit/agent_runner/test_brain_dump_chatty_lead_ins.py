"""A chatty lead-in before a lone task ("ok so I need to ...", "I should probably ...", "i
probably need to ...") is no part of the item: a probe saw "ok so I need to renew my passport
before march" and "I should probably book a dentist appointment" saved as said."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain.scripted import Turn, run

from .turns import brain_dump_turn


def turn(message: str) -> Turn:
    return brain_dump_turn(message, inbox_count=3, messages_in_step=3)


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("ok so I need to renew my passport before march", ["renew my passport before march"]),
        ("I should probably book a dentist appointment", ["book a dentist appointment"]),
        ("i probably need to call mom", ["call mom"]),
        ("well I really should fix the bike", ["fix the bike"]),
        ("ok so I need to renew my passport, and also call the plumber. oh and I should "
         "probably book a dentist appointment",
         ["renew my passport", "call the plumber", "book a dentist appointment"]),
    ],
)  # fmt: skip
def test_the_lead_in_goes(message: str, items: list[str]) -> None:
    assert run(turn(message)).extracted_data["inbox_items"] == items


@pytest.mark.parametrize("message", ["ok so I need a vacation", "probably book a dentist"])
def test_without_an_action_after_a_lead_in_it_stays_as_said(message: str) -> None:
    assert run(turn(message)).extracted_data["inbox_items"] == [message]
