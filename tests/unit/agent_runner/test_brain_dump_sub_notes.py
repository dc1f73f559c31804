"""A note indented under a list's entry goes with that entry: a probe saw "need numbers from
Mike first" (under "- finish Q3 report") and "(он просил с графиками)" (under "1. отчёт для
Пети") saved as inbox items of their own."""

# ruff: noqa: RUF001, RUF002  (Russian text, the docstring too, is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain.scripted import run

from .turns import brain_dump_turn


def items(message: str) -> list[str]:
    out = run(brain_dump_turn(message, messages_in_step=1))
    return list(out.extracted_data["inbox_items"])


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("ok here's my list:\n- finish Q3 report (due friday!)\n  - need numbers from Mike first"
         "\n- gym 3x a week\n* call mom",
         ["finish Q3 report (due friday!) (need numbers from Mike first)", "gym 3x a week",
          "call mom"]),
        ("вот список:\n1. отчёт для Пети — до среды\n   (он просил с графиками)\n2. стоматолог",
         ["отчёт для Пети — до среды (он просил с графиками)", "стоматолог"]),
        ("- groceries\n    - milk\n    - eggs\n- pay rent", ["groceries (milk, eggs)", "pay rent"]),
    ],
)  # fmt: skip
def test_a_note_under_an_entry_is_part_of_it(message: str, expected: list[str]) -> None:
    assert items(message) == expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # A step of its own under an entry is an item.
        ("- move\n  - call movers\n  - pack kitchen", ["move", "call movers", "pack kitchen"]),
        # Without a bullet above, an indented line is a line as any other.
        ("call mom\n  pay rent", ["call mom", "pay rent"]),
    ],
)  # fmt: skip
def test_an_action_or_a_line_under_no_entry_is_an_item(message: str, expected: list[str]) -> None:
    assert items(message) == expected
