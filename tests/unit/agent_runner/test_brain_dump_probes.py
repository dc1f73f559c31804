"""Brain dump messages a probe conversation found misread: a list or its heading after an
opener of filler ("omg ok. 1) call mom 2) pay rent", "так, дела: купить хлеб"); filler alone
("shoot", "если честно") saved as an item."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run


def turn(message: str, **extra: Any) -> Turn:
    return Turn(
        agent="inbox_collector",
        current_step="brain_dump",
        message=message,
        language=lang.language_of(message),
        messages_in_step=1,
        **extra,
    )


_THREE = ["call mom", "pay rent", "book dentist"]


@pytest.mark.parametrize(
    ("message", "items"),
    [
        # Saved as "omg ok" and "1) call mom 2) pay rent 3) book dentist".
        ("omg ok. 1) call mom 2) pay rent 3) book dentist", _THREE),
        ("ok 1. call mom 2. pay rent 3. book dentist", _THREE),
        ("ну вот: 1) купить хлеб 2) позвонить маме", ["купить хлеб", "позвонить маме"]),
        # The heading was kept in the first item ("дела: купить хлеб").
        ("так, дела: купить хлеб", ["купить хлеб"]),
        ("так, дела: купить хлеб; позвонить маме", ["купить хлеб", "позвонить маме"]),
        ("ok so, todo: buy bread", ["buy bread"]),
        # No list after it: read as it stands.
        ("ok, call mom 2) later", ["call mom 2) later"]),
        ("so, buy 2 apples", ["buy 2 apples"]),
    ],
)  # fmt: skip
def test_a_list_or_its_heading_after_an_opener_is_read_as_a_list(
    message: str, items: list[str]
) -> None:
    out = run(turn(message))
    assert out.extracted_data == {"inbox_items": items}


@pytest.mark.parametrize(
    "message",
    [
        "ugh where do i even start lol", "omg ok", "shoot", "oops", "если честно", "жесть",
        "не знаю, с чего начать", "honestly idk where to start",
    ],
)  # fmt: skip
def test_filler_alone_is_no_item(message: str) -> None:
    # Each was saved ("Saved to your inbox: shoot"); answered as "лол" or "ugh" is.
    out = run(turn(message, inbox_count=1))
    assert out.extracted_data == {}
    language = lang.language_of(message)
    assert out.message == texts.text(language, "inbox_more", need=2, total=1, least=3)


@pytest.mark.parametrize(
    ("message", "items"),
    [
        ("shoot, call mom", ["call mom"]), ("если честно, купить хлеб", ["купить хлеб"]),
        ("shoot the video for mom", ["shoot the video for mom"]),
        ("start a blog", ["start a blog"]), ("where to buy tires", ["where to buy tires"]),
    ],
)  # fmt: skip
def test_an_item_after_or_of_filler_words_is_still_an_item(message: str, items: list[str]) -> None:
    out = run(turn(message, inbox_count=1))
    assert out.extracted_data == {"inbox_items": items}
