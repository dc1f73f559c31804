"""A swap of one life area for another asked of discovery's summary ("поменяй работу на
учёбу", "replace work with study"): one area out, the other in."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn, run

FACTS = {"work": "работа", "health": "здоровье", "relationships": "семья"}


@pytest.mark.parametrize(
    ("message", "named", "declined"),
    [
        # Both were saved as one fact for each area, and work was kept.
        ("поменяй работу на учебу", {"growth": "учёба"}, {"work"}),
        ("Замени, пожалуйста, работу на учёбу", {"growth": "учёба"}, {"work"}),
        ("replace work with study", {"growth": "study"}, {"work"}),
        ("change work to study", {"growth": "study"}, {"work"}),
        ("swap hobbies for family", {"relationships": "family"}, {"hobbies"}),
        # One area said another way: what it is now.
        ("нет, замени семью на друзей", {"relationships": "друзья"}, set()),
        # Not a swap of areas: as said.
        ("поменяй работу на удалёнку", {"work": "поменяй работу на удалёнку"}, set()),
        (
            "Хочу поменять работу на более спокойную",
            {"work": "Хочу поменять работу на более спокойную"},
            set(),
        ),
    ],
)
def test_a_swap_of_areas_takes_one_out_and_puts_the_other_in(
    message: str, named: dict[str, str], declined: set[str]
) -> None:
    assert lang.areas_said(message) == (named, declined)


def test_discovery_drops_the_area_swapped_out_of_its_summary() -> None:
    out = run(
        Turn(
            agent="discovery", current_step="discovery", message="поменяй работу на учебу",
            facts=FACTS, language="ru", can_complete=True,
        )
    )  # fmt: skip
    assert out.extracted_data == {"facts": {"growth": "учёба"}, "dropped_facts": ["work"]}
    assert out.message.startswith("Убрал: работа.")
