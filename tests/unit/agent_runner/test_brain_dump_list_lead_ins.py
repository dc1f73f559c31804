"""Brain dump lists a probe found kept whole: a few words before "I have to"/"надо" ("So this
week I have to ..., ..."), a deadline or "ещё" before a verb ("до пятницы сдать отчёт, потом
ещё согласовать отпуск") and chat spelling of a verb ("txt jake abt sat")."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain.brain_dump import split_items


@pytest.mark.parametrize(
    ("message", "items"),
    [
        (
            "So this week I have to book the 4 month checkup, pick up the prescription, and pay "
            "the daycare invoice",
            ["book the 4 month checkup", "pick up the prescription", "pay the daycare invoice"],
        ),
        (
            "this week I need to renew my license, call the bank and return the library books",
            ["renew my license", "call the bank", "return the library books"],
        ),
        (
            "на работе надо до пятницы сдать отчёт, потом ещё согласовать отпуск",
            ["до пятницы сдать отчёт", "согласовать отпуск"],
        ),
        # A day alone before the lead-in says only when, as "this week" does.
        ("Сегодня надо позвонить маме, починить кран", ["позвонить маме", "починить кран"]),
        (
            "tomorrow I have to call the bank, book the dentist",
            ["call the bank", "book the dentist"],
        ),
        (
            "fix bike, pay rent, txt jake abt sat, dentist appt",
            ["fix bike", "pay rent", "txt jake abt sat", "dentist appt"],
        ),
    ],
)
def test_a_list_after_a_few_words_is_an_item_per_action(message: str, items: list[str]) -> None:
    assert split_items(message) == items


@pytest.mark.parametrize(
    "message",
    [
        "my mom said I need to call her, and buy bread", "tell Bob I have to leave early",
        "Сегодня надо позвонить маме, узнать, как она",
    ],
)  # fmt: skip
def test_words_that_say_more_than_when_keep_the_sentence_whole(message: str) -> None:
    assert split_items(message) == [message]
