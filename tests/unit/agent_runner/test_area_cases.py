"""A life area's word said alone in another case than the nominative ("работой, здоровьем и
семьей") is kept as its nominative: the summary read "- работа: работой"."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.area_cases import nominative
from baton_agent_runner.domain.discovery_followup import note


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        (
            "работой, здоровьем и семьей",
            {"work": "работа", "health": "здоровье", "relationships": "семья"},
        ),
        (
            "Работу, семью и здоровье",
            {"work": "Работа", "health": "здоровье", "relationships": "семья"},
        ),
        (
            "работе, учёбе и увлечениям",
            {"work": "работа", "growth": "учёба", "hobbies": "увлечения"},
        ),
        ("семьёй", {"relationships": "семья"}),
        ("карьерой и детьми", {"work": "карьера", "relationships": "дети"}),
        # More than the word: as said.
        ("Работой занимаюсь много", {"work": "Работой занимаюсь много"}),
        ("С семьёй", {"relationships": "С семьёй"}),
    ],
)
def test_an_area_word_alone_is_kept_in_the_nominative(message: str, facts: dict[str, str]) -> None:
    assert lang.areas_in(message) == facts


@pytest.mark.parametrize("said", ["работа", "work", "фотография", "работой занимаюсь", ""])
def test_anything_but_an_area_word_in_another_case_is_as_said(said: str) -> None:
    assert nominative(said) == said


@pytest.mark.parametrize(
    ("message", "kept"),
    [("работой", "работа"), ("Здоровьем", "здоровье"), ("семьёй", "отношения — семья")],
)
def test_the_area_ranked_first_said_in_another_case_is_noted_in_the_nominative(
    message: str, kept: str
) -> None:
    # "Что из этого сейчас для тебя важнее всего?" "работой" was noted "работа — работой".
    assert note("focus", message, "ru") == kept


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        # Words between the ranking and the area: "здоровье — для меня сейчас — здоровье, ...".
        (
            "Главное для меня сейчас — здоровье, потому что постоянно болею",
            "здоровье — здоровье, потому что постоянно болею",
        ),
        ("Главное сейчас — семья", "отношения — семья"),
        ("для меня главное — работа", "работа"),
    ],
)
def test_the_ranking_before_the_area_ranked_first_is_no_part_of_its_note(
    message: str, kept: str
) -> None:
    assert note("focus", message, "ru") == kept
