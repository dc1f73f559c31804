"""A to-do list said to the summary is kept for the brain dump, and the areas' facts stay as
they were: "finish the report, email the boss, book a dentist" became the work fact, and the
tasks were lost (found by a probe)."""

from __future__ import annotations

import pytest

from .turns import to_summary

FACTS = {"work": "I work as a nurse", "health": "gym", "relationships": "kids"}


@pytest.mark.parametrize(
    ("message", "items"),
    [("finish the report, email the boss, book a dentist",
      ["finish the report", "email the boss", "book a dentist"]),
     ("- finish the report\n- email my boss\n- call mom",
      ["finish the report", "email my boss", "call mom"]),
     ("1. send invoice 2. prepare slides for work 3. buy milk",
      ["send invoice", "prepare slides for work", "buy milk"]),
     ("закончить отчёт по работе, позвонить маме, купить хлеб",
      ["закончить отчёт по работе", "позвонить маме", "купить хлеб"])],
)  # fmt: skip
def test_a_to_do_list_at_the_summary_is_kept_for_the_brain_dump(
    message: str, items: list[str]
) -> None:
    out = to_summary(message, facts=FACTS)
    assert out.extracted_data == {"deferred_inbox_items": items}
    assert "; ".join(items) in out.message
    assert not out.step_completed


def test_with_no_inbox_step_ahead_the_list_is_saved_now() -> None:
    out = to_summary("finish the report, email the boss", facts=FACTS, inbox_ahead=False)
    assert out.extracted_data == {"inbox_items": ["finish the report", "email the boss"]}


@pytest.mark.parametrize(
    ("message", "areas"),
    [("call mom more often, go to the gym more", {"relationships", "health"}),
     ("finish the report, take up painting", {"hobbies"})],
)  # fmt: skip
def test_habits_or_a_new_area_are_no_to_do_list(message: str, areas: set[str]) -> None:
    assert set(to_summary(message, facts=FACTS).extracted_data.get("facts", {})) == areas
