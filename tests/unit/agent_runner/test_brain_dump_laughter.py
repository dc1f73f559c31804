"""Laughter or an exclamation opening a brain dump line ("lol call mom", "omg pay rent") is no
part of the item, and alone ("haha", "lmao") is no item: a probe saw "lol call mom" saved as
said, while "call mom lol" was saved as "call mom"."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain.scripted import run

from .turns import brain_dump_turn


def items(message: str) -> list[str]:
    out = run(brain_dump_turn(message, inbox_count=3, messages_in_step=3))
    return list(out.extracted_data.get("inbox_items", []))


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("lol call mom", ["call mom"]), ("haha call mom", ["call mom"]),
        ("omg pay rent", ["pay rent"]), ("ugh call mom", ["call mom"]),
        ("лол позвонить маме", ["позвонить маме"]), ("хаха купить хлеб", ["купить хлеб"]),
        ("омг позвонить маме", ["позвонить маме"]),
    ],
)  # fmt: skip
def test_laughter_before_an_item_goes(message: str, expected: list[str]) -> None:
    assert items(message) == expected


@pytest.mark.parametrize("message", ["haha", "lmao", "hehe"])
def test_laughter_alone_is_no_item(message: str) -> None:
    assert items(message) == []


@pytest.mark.parametrize("message", ["hat shopping", "lolly pops buy"])
def test_a_word_that_starts_like_laughter_stays(message: str) -> None:
    assert items(message) == [message]
