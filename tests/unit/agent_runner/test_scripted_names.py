"""The user's name, said as one, goes into the greeting's step data as `user_name` (seed 000
§5: `"user_name": "Alex"  // если агент узнал`), the greeter greets by it once, and the
coordinator congratulates by it."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.names import name_in
from baton_agent_runner.domain.scripted import Turn, run


def turn(agent: str, message: str, **extra: Any) -> Turn:
    extra.setdefault("can_complete", True)
    return Turn(
        agent=agent, current_step="s", message=message, language=lang.language_of(message), **extra
    )


def named(name: str) -> dict[str, Any]:
    """A `step_context` whose greeting kept `name`."""
    return {"workflow": {"step_data": {"greeting": {"messages": 1, "user_name": name}}}}


@pytest.mark.parametrize(
    ("message", "name"),
    [
        ("Привет! Меня зовут Аня", "Аня"),
        ("меня зовут аня, я из Москвы", "Аня"),
        ("Моё имя — Анна-Мария", "Анна-Мария"),
        ("Меня зовут: Оля", "Оля"),
        ("My name is Alex.", "Alex"),
        ("hi, my name’s bob", "Bob"),
        ("I'm called Sam", "Sam"),
        # A clause that is only "I am" and a word written as a name.
        ("Привет! Я Олег", "Олег"),
        ("Привет, я Олег", "Олег"),
        ("Hi, I'm Alex, what is this?", "Alex"),
        ("I am Alex.", "Alex"),
        ("Я Аня и я готова", "Аня"),
        ("Hi, I'm Alex-Mary!", "Alex-Mary"),
    ],
)
def test_a_name_said_as_one_is_found(message: str, name: str) -> None:
    assert name_in(message) == name


@pytest.mark.parametrize(
    "message",
    [
        "I am ready", "я готов", "My name is not important", "меня зовут не важно как",
        "Меня зовут 123", "меня зовутАня", "Зови меня потом",
        # "I am" and a word not written as a name, or more than a name after it.
        "I'm Ready", "Я Готов", "Ok. I'm Sorry", "я олег", "I'M ALEX", "Я Олег Петрович, директор",
        "I'm Alex's brother", "я в Москве", "Кстати я Олег", "ЯОлег",
    ],
)  # fmt: skip
def test_no_name_is_read_into_what_is_no_introduction(message: str) -> None:
    assert name_in(message) is None


def test_the_greeter_keeps_the_name_and_greets_by_it_in_its_introduction() -> None:
    out = run(turn("greeter", "Привет! Меня зовут Аня"))
    assert out.message.startswith("Привет, Аня! Я Baton")
    assert out.workflow_signal is not None
    assert out.workflow_signal.action == "stay"
    assert out.workflow_signal.data == {"user_name": "Аня"}


def test_a_name_said_with_readiness_is_kept_as_the_step_completes() -> None:
    history = [{"role": "assistant", "text": "Hi! I am Baton."}]
    out = run(turn("greeter", "Got it, let's go! My name is Alex.", history=history))
    assert out.step_completed
    assert out.message.startswith("Nice to meet you, Alex! Great, let's go!")
    assert out.workflow_signal is not None and out.workflow_signal.data["user_name"] == "Alex"


def test_a_name_already_kept_is_not_greeted_again() -> None:
    history = [{"role": "assistant", "text": "Hi, Alex! I am Baton."}]
    out = run(
        turn("greeter", "my name is Alex, what is this?", history=history, step=named("Alex"))
    )
    assert "Alex" not in out.message
    assert out.workflow_signal is not None and "user_name" not in out.workflow_signal.data


def test_a_name_said_with_an_inbox_request_is_kept_too() -> None:
    out = run(turn("greeter", "Меня зовут Аня. Запиши в inbox: купить молоко", inbox_ahead=True))
    assert out.workflow_signal is not None
    assert out.workflow_signal.data["user_name"] == "Аня"
    assert out.workflow_signal.data["deferred_inbox_items"] == ["купить молоко"]


@pytest.mark.parametrize(
    ("message", "opening"),
    [("ok", "Congratulations, Alex, onboarding is complete!"),
     ("ок", "Поздравляю, Alex, онбординг завершён!")],
)  # fmt: skip
def test_the_coordinator_congratulates_by_name(message: str, opening: str) -> None:
    out = run(turn("coordinator", message, step=named("Alex"), inbox_count=3))
    assert out.message.startswith(opening)
    plain = run(turn("coordinator", message, inbox_count=3))
    assert "Alex" not in plain.message
