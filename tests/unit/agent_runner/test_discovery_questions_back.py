"""Questions a user asks back about discovery's own question get an answer, then the question
again: they got the question alone, or the generic "I ask so that ..."."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run

FACTS = {"work": "w", "health": "h", "relationships": "r"}


def _turn(message: str, said: str, language: str, **extra: Any) -> Turn:
    extra.setdefault("can_complete", False)
    history = [{"role": "assistant", "text": said}]
    return Turn(
        agent="discovery", current_step="s", message=message, history=history,
        language=language, **extra,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("language", "message", "key"),
    [
        ("en", "what do you mean by areas?", "discovery_about_areas"),
        ("en", "can I say more than one?", "discovery_about_several"),
        ("en", "do i have to?", "discovery_about_must"),
        ("ru", "что значит области?", "discovery_about_areas"),
        ("ru", "а можно несколько?", "discovery_about_several"),
        ("ru", "обязательно?", "discovery_about_must"),
        ("ru", "зачем это?", "faq_why"),
        ("en", "what's an area?", "discovery_about_areas"),
        ("en", "areas?", "discovery_about_areas"),
        ("ru", "области?", "discovery_about_areas"),
        ("en", "how many areas do I need?", "discovery_about_several"),
        ("en", "do I have to name three?", "discovery_about_must"),
        ("ru", "а обязательно три?", "discovery_about_must"),
    ],
)
def test_a_question_back_before_any_area_is_answered_then_asked_again(
    language: str, message: str, key: str
) -> None:
    first = run(_turn("hi", "", language)).message
    out = run(_turn(message, first, language))
    answer = texts.text(language, key)
    assert out.message.startswith(answer) and not out.step_completed
    opening = texts.text(language, "discovery_ask_first", missing="x").split("?")[0]
    assert f" {opening}?" in out.message
    assert out.message != first


@pytest.mark.parametrize(("language", "message"), [("en", "what's next?"), ("ru", "а что дальше?")])
def test_whats_next_at_which_matters_most_says_what_comes_next(language: str, message: str) -> None:
    asked = texts.text(language, "discovery_ask_focus")
    out = run(_turn(message, f"Good. {asked}", language, facts=FACTS))
    assert not out.message.startswith(texts.text(language, "discovery_why_asked"))
    assert out.message.startswith(texts.text(language, "discovery_about_next", then="x")[:8])
    assert texts.text(language, "discovery_then_inbox") in out.message
    assert out.message.endswith(asked) and not out.step_completed


def test_whats_next_when_the_step_may_close_says_it_is_the_last_question() -> None:
    asked = texts.text("en", "discovery_ask_focus")
    out = run(_turn("what's next?", f"Good. {asked}", "en", facts=FACTS, can_complete=True))
    assert out.message.startswith("This is the last question here")


def test_more_than_one_at_which_matters_most_is_told_to_rank_them() -> None:
    asked = texts.text("en", "discovery_ask_focus")
    out = run(_turn("can I say more than one?", f"Good. {asked}", "en", facts=FACTS))
    assert out.message == f"{texts.text('en', 'discovery_about_several_focus')} {asked}"


@pytest.mark.parametrize("message", ["work, health", "what do you mean by areas? work"])
def test_an_answer_with_areas_is_no_question_back(message: str) -> None:
    first = run(_turn("hi", "", "en")).message
    out = run(_turn(message, first, "en"))
    assert not out.message.startswith(texts.text("en", "discovery_about_areas"))


def test_a_question_back_asked_twice_is_answered_again_as_a_repeat() -> None:
    # The second answer, the same as the first, came after "I did not quite get that.".
    first = run(_turn("hi", "", "en")).message
    once = run(_turn("what do you mean by areas?", first, "en")).message
    again = run(
        Turn(
            agent="discovery", current_step="s", message="what do you mean by areas?",
            history=[{"role": "assistant", "text": said} for said in (first, once)],
            language="en", can_complete=False,
        )
    ).message  # fmt: skip
    assert again == f"{texts.text('en', 'discovery_to_repeat')}\n{once}"


@pytest.mark.parametrize(("language", "message"), [("en", "what's next?"), ("ru", "а что дальше?")])
def test_whats_next_before_any_area_says_the_areas_come_first(language: str, message: str) -> None:
    first = run(_turn("hi", "", language)).message
    out = run(_turn(message, first, language))
    then = texts.text(language, "discovery_then_inbox")
    assert out.message.startswith(texts.text(language, "discovery_about_next_first", then=then))
