"""A bare acknowledgement to a follow-up question ("sure" to what would make a good week) is
no answer while the step still needs a turn: the question is asked again, briefly, once. It
was taken as a pass, and the question went unanswered (found by a probe). Once the step may
close, a bare "да" closes it, as before."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain import texts

from .turns import to_question

ASKED_AGAIN = {"en": "A word or two will do", "ru": "Хватит пары слов"}


@pytest.mark.parametrize(
    ("key", "message", "language"),
    [("good_week", "sure", "en"), ("good_week", "ok!", "en"), ("good_week", "yes", "en"),
     ("constraints", "sure", "en"), ("focus", "yeah ok", "en"),
     ("good_week", "ага", "ru"), ("good_week", "конечно", "ru")],
)  # fmt: skip
def test_a_bare_acknowledgement_gets_the_question_again(
    key: str, message: str, language: str
) -> None:
    out = to_question(key, message)
    assert out.message.startswith(ASKED_AGAIN[language]), out.message
    assert out.message.endswith(texts.text(language, f"discovery_ask_{key}"))
    assert not out.step_completed
    assert out.extracted_data == {}


def test_a_second_acknowledgement_moves_on() -> None:
    # Asked again once: "sure" again is not met with the same request a third time.
    question = texts.text("en", "discovery_ask_good_week")
    again = f"{texts.text('en', 'discovery_say_more')} {question}"
    history = [{"role": "assistant", "text": again}]
    out = to_question("good_week", "sure", history=history)
    assert not out.message.startswith(ASKED_AGAIN["en"])
    assert not out.message.endswith(question)


def test_once_the_step_may_close_a_bare_yes_closes_it() -> None:
    assert to_question("good_week", "sure", can_complete=True).step_completed


@pytest.mark.parametrize("message", ["готово", "that's all", "skip"])
def test_done_or_a_pass_is_no_acknowledgement(message: str) -> None:
    out = to_question("good_week", message, can_complete=True)
    assert out.step_completed
