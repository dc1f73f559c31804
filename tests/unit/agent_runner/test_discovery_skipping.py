"""Asking discovery to skip its step ("пропусти", "дальше", "skip this"): seed 000 wants the
user told why a required step must be finished, a skip said to the summary moves on, and one
said to a follow-up question passes on it, kept as no answer."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run
from baton_agent_runner.domain.skipping import asks_to_skip

FACTS = {"work": "w", "health": "h", "relationships": "r"}


def _turn(message: str, *said: str, language: str = "ru", **extra: Any) -> Turn:
    history = [{"role": "assistant", "text": reply} for reply in said]
    return Turn(
        agent="discovery", current_step="discovery", message=message, history=history,
        language=language, **extra,
    )  # fmt: skip


@pytest.mark.parametrize(
    "message",
    [
        "пропусти", "дальше", "Можно пропустить этот шаг?", "давай пропустим",
        "не хочу отвечать, дальше", "го к следующему шагу", "skip this", "next",
        "lets move on", "I dont want to answer, skip",
    ],
)  # fmt: skip
def test_a_request_to_skip_is_read_as_one(message: str) -> None:
    assert asks_to_skip(message)


@pytest.mark.parametrize(
    "message",
    ["что дальше?", "а дальше что?", "не пропускай", "don't skip", "давай", "next: health"],
)
def test_a_question_or_a_plea_not_to_skip_is_no_request_to_skip(message: str) -> None:
    assert not asks_to_skip(message)


@pytest.mark.parametrize(
    ("language", "message"),
    [("ru", "пропусти"), ("ru", "Можно пропустить этот шаг?"), ("en", "can we skip this step")],
)
def test_discovery_says_why_its_step_cannot_be_skipped(language: str, message: str) -> None:
    # "Какие области жизни ...?" again, then "Не совсем понял.": never why the step waits.
    out = run(_turn(message, language=language))
    assert out.message.startswith(texts.text(language, "discovery_no_skip"))
    asked = texts.text(language, "discovery_ask_first", missing="")
    assert asked.split("?")[0] in out.message and not out.step_completed
    assert out.extracted_data == {}


def test_a_second_request_to_skip_is_answered_more_briefly_with_what_is_known() -> None:
    first = run(_turn("пропусти", facts={"work": "работа"})).message
    assert "С прошлого раза: работа." in first  # a fact of an earlier run, told again
    again = run(_turn("дальше", first, facts={"work": "работа"})).message
    assert again.startswith(texts.text("ru", "discovery_no_skip_again"))
    assert "Не совсем понял" not in again


@pytest.mark.parametrize("message", ["давай дальше", "дальше", "пропусти"])
def test_moving_on_from_the_summary_confirms_it(message: str) -> None:
    summary = run(_turn("работа, здоровье, семья", can_complete=True)).message
    out = run(_turn(message, summary, facts=FACTS, can_complete=True))
    assert out.step_completed and out.completion_reason == "user_confirmed"


def test_skipping_a_follow_up_question_keeps_no_answer() -> None:
    # "пропусти этот шаг" to "what would make your week good?" was kept as that note.
    asked = texts.text("ru", "discovery_ask_good_week")
    out = run(_turn("пропусти этот шаг", asked, facts=FACTS, can_complete=True))
    assert out.step_completed and "notes" not in out.extracted_data


@pytest.mark.parametrize(
    ("language", "message"), [("ru", "пропусти"), ("ru", "дальше"), ("en", "skip this please")]
)
def test_a_skip_after_the_greeters_introduction_is_readiness(language: str, message: str) -> None:
    # It got the explanation of the steps again; moving on is what the greeting waits for.
    intro = texts.text(language, "greeter_intro")
    turn = Turn(
        agent="greeter", current_step="greeting", message=message, can_complete=True,
        history=[{"role": "assistant", "text": intro}], language=language,
    )  # fmt: skip
    out = run(turn)
    assert out.step_completed and out.message == texts.text(language, "greeter_done")


def test_a_skip_before_any_introduction_gets_the_introduction() -> None:
    turn = Turn(agent="greeter", current_step="greeting", message="пропусти", language="ru",
                can_complete=True)  # fmt: skip
    out = run(turn)
    assert not out.step_completed and out.message == texts.text("ru", "greeter_intro")


@pytest.mark.parametrize(
    ("language", "message"), [("ru", "пропусти"), ("ru", "давай дальше"), ("en", "skip this")]
)
def test_an_optional_step_is_skipped_as_asked(language: str, message: str) -> None:
    # "This step cannot be skipped" was said of a step the definition makes optional.
    out = run(_turn(message, language=language, step_required=False, can_complete=True))
    assert out.step_completed and out.completion_reason == "user_confirmed"
    assert out.message.startswith(texts.text(language, "discovery_skipped"))
    assert texts.text(language, "discovery_no_skip") not in out.message
    assert out.extracted_data == {}


def test_an_optional_step_with_no_brain_dump_ahead_is_skipped_without_asking_to_start_it() -> None:
    turn = _turn("skip this", language="en", step_required=False, inbox_ahead=False)
    assert run(turn).message == texts.text("en", "discovery_skipped")


@pytest.mark.parametrize(
    ("language", "message"), [("ru", "а это обязательно?"), ("en", "do i have to?")]
)
def test_asked_whether_it_must_an_optional_step_offers_the_skip(
    language: str, message: str
) -> None:
    required = run(_turn(message, language=language)).message
    assert required.startswith(texts.text(language, "discovery_about_must"))
    optional = run(_turn(message, language=language, step_required=False)).message
    assert optional.startswith(texts.text(language, "discovery_about_must_optional"))
