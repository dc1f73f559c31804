"""Russian written in Latin letters ("privet", "davai", "rabota, zdorovie, semya"): answered
in Russian, its readiness and its life areas read. It got English replies and "Which areas
of your life matter most?" again."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run


@pytest.mark.parametrize("message", ["privet", "privet, chto eto?", "ok davai", "spasibo"])
def test_russian_in_latin_letters_is_russian(message: str) -> None:
    assert lang.clear_language(message) == "ru"
    assert lang.language_in(message, []) == "ru"


@pytest.mark.parametrize(
    ("message", "language"),
    [("hello there my friend", "en"), ("ok", None), ("da", None), ("the net is down", "en")],
)
def test_english_is_not_taken_for_russian_in_latin_letters(
    message: str, language: str | None
) -> None:
    assert lang.clear_language(message) == language


@pytest.mark.parametrize("message", ["davai", "ok, poehali", "ponyal, pognali"])
def test_readiness_in_latin_letters_completes_the_greeting(message: str) -> None:
    intro = texts.text("ru", "greeter_intro")
    turn = Turn(
        agent="greeter", current_step="greeting", message=message, can_complete=True,
        history=[{"role": "assistant", "text": intro}], language=lang.language_in(message, []),
    )  # fmt: skip
    out = run(turn)
    assert out.step_completed and out.message == texts.text("ru", "greeter_done")


def test_life_areas_in_latin_letters_are_read() -> None:
    assert lang.areas_in("rabota, zdorovie, semya") == {
        "work": "rabota", "health": "zdorovie", "relationships": "semya",
    }  # fmt: skip
    assert lang.areas_in("ucheba, hobbi") == {"growth": "ucheba", "hobbies": "hobbi"}


@pytest.mark.parametrize("message", ["hobbit", "semi-final", "the rabbit"])
def test_english_words_like_them_name_no_area(message: str) -> None:
    assert lang.areas_in(message) == {}


FACTS = {"work": "rabota", "health": "zdorovie", "relationships": "semya"}


@pytest.mark.parametrize("message", ["da", "aga", "da, verno", "vsyo"])
def test_a_yes_in_latin_letters_confirms_the_summary(message: str) -> None:
    # Told to say "да", the user wrote "da" and was not understood for as long as they went on.
    summary = run(Turn(agent="discovery", current_step="d", message="rabota, zdorovie, semya",
                       language="ru", can_complete=True)).message  # fmt: skip
    turn = Turn(
        agent="discovery", current_step="d", message=message, facts=FACTS, can_complete=True,
        history=[{"role": "assistant", "text": summary}], language="ru",
    )  # fmt: skip
    assert run(turn).step_completed


@pytest.mark.parametrize("message", ["vsyo", "eto vse", "gotovo"])
def test_thats_all_in_latin_letters_ends_the_brain_dump(message: str) -> None:
    assert lang.finishes(message)
