"""Asking to be answered in a language ("привет, can we do this in English?") is heeded: a
probe saw it answered in Russian, for its Cyrillic greeting, and "ok go" after it too."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain.language import language_in
from baton_agent_runner.domain.scripted import Turn, run


@pytest.mark.parametrize(
    ("message", "language"),
    [
        ("привет, can we do this in English?", "en"), ("Привет! Давай лучше по-английски", "en"),
        ("english please", "en"), ("hi, по-русски можно?", "ru"),
        ("can we speak russian please", "ru"),
    ],
)  # fmt: skip
def test_the_language_asked_for_is_the_reply_s(message: str, language: str) -> None:
    assert language_in(message, []) == language


def test_an_unclear_message_after_the_request_keeps_its_language() -> None:
    assert language_in("ok go", ["привет, can we do this in English?"]) == "en"


def test_the_greeter_answers_the_request_in_english() -> None:
    message = "привет, can we do this in English?"
    out = run(Turn(agent="greeter", current_step="greeting", message=message,
                   language=language_in(message, []), can_complete=True))  # fmt: skip
    assert "Baton" in out.message
    assert not any("а" <= ch <= "я" for ch in out.message.lower())


@pytest.mark.parametrize(
    ("message", "language"),
    [
        ("я не говорю по-английски", "ru"), ("написать отчёт на английском", "ru"),
        ("translate the letter in russian", "en"),
    ],
)  # fmt: skip
def test_a_language_refused_or_named_in_a_task_is_no_request(message: str, language: str) -> None:
    assert language_in(message, []) == language
