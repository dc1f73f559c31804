"""How the scripted agents read a brain dump: its items, "that's all", and off-topic inbox
requests."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain import brain_dump


@pytest.mark.parametrize(
    "message", ["Это всё, спасибо!", "Больше ничего нет", "That's all for now", "готово!"]
)
def test_a_completion_phrase_in_a_line_is_done_and_no_item(message: str) -> None:
    assert brain_dump.says_done(message) and brain_dump.split_items(message) == []


@pytest.mark.parametrize(
    "message", ["А что именно писать?", "ок", "хорошо", "давай", "ok", "sure", "хорошо, давай"]
)
def test_a_question_or_an_acknowledgement_is_no_item(message: str) -> None:
    assert brain_dump.split_items(message) == [] and not brain_dump.says_done(message)


@pytest.mark.parametrize(
    ("message", "items"),
    [
        (
            "1. купить молоко 2. позвонить маме 3. отчёт",
            ["купить молоко", "позвонить маме", "отчёт"],
        ),
        ("Дела: 1) налог 2) врач", ["налог", "врач"]),
        ("1. встреча в 10. 2. обед", ["встреча в 10", "обед"]),
        ("купить 2 литра молока", ["купить 2 литра молока"]),
        ("купить 1.5 литра молока", ["купить 1.5 литра молока"]),
        ("взять 2) ключи 3) зонт", ["взять 2) ключи 3) зонт"]),  # not counted from 1
        ("сдать отчёт\nэто всё", ["сдать отчёт"]),
        ("купить хлеб, это всё", ["купить хлеб"]),
        ("get the report done", ["get the report done"]),
    ],
)
def test_brain_dump_items(message: str, items: list[str]) -> None:
    assert brain_dump.split_items(message) == items


@pytest.mark.parametrize(
    ("message", "item"),
    [
        ("Запиши в inbox: купить молоко", "купить молоко"),
        ("Запиши во входящие: купить хлеб", "купить хлеб"),
        ("Добавь купить хлеб во входящие", "купить хлеб"),
        ("Add buy milk to my inbox", "buy milk"),
        ("Put this in my inbox: buy milk", "buy milk"),
        ("Remind me to buy milk", None),
    ],
)
def test_an_inbox_request_names_its_item(message: str, item: str | None) -> None:
    assert brain_dump.inbox_request(message) == item
