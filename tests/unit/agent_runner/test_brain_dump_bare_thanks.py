"""Thanks ending an item without a comma ("pay bills thank you") are no part of it: a probe
saw "pay bills thank you" saved as said, while "water plants, thanks!" was saved as "water
plants"."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain.scripted import run

from .turns import brain_dump_turn


def items(message: str) -> list[str]:
    out = run(brain_dump_turn(message, messages_in_step=1))
    return list(out.extracted_data.get("inbox_items", []))


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("pay bills thank you", ["pay bills"]), ("pay bills thanks!", ["pay bills"]),
        ("call mom thank you so much", ["call mom"]), ("купить хлеб спасибо", ["купить хлеб"]),
    ],
)  # fmt: skip
def test_bare_thanks_at_the_end_go(message: str, expected: list[str]) -> None:
    assert items(message) == expected


@pytest.mark.parametrize(
    "message",
    ["send grandma a thank you", "say thanks to Bob", "write a big thank you",
     "передать спасибо", "сказать спасибо Пете"],
)  # fmt: skip
def test_thanks_that_are_the_task_s_object_stay(message: str) -> None:
    assert items(message) == [message]
