"""A name with an initial ("В. Петрову", "J. Smith", "Петрову В.") keeps it in the inbox items
and the priority facts the scripted agents read from a message."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import pytest

from baton_agent_runner.domain import brain_dump, inbox_requests
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn, run


def said(agent: str, message: str) -> Turn:
    language = lang.language_of(message)
    return Turn(agent=agent, current_step="s", message=message, language=language)


@pytest.mark.parametrize(
    ("message", "items"),
    [
        # An initial at the start of a phrase was read as a hedge's "в", "а", "и", "I" and cut.
        ("В. Петрову позвонить", ["В. Петрову позвонить"]),
        ("Да, В. Петрову позвонить", ["В. Петрову позвонить"]),
        ("- А. Иванову написать", ["А. Иванову написать"]),
        ("Всё. Хотя нет, И. Сидорову отправить отчёт", ["И. Сидорову отправить отчёт"]),
        ("Это всё, кроме В. Петрова", ["В. Петрова"]),
        ("I. Newton: return the book", ["I. Newton: return the book"]),
        ("ok, J. Smith call back", ["J. Smith call back"]),
        # A verb that is also a hedge's word ("дай подумать", "что написать") before an initial
        # was cut with it, as if "Написать А." were a hedge and its sentence.
        ("Написать А. Петрову", ["Написать А. Петрову"]),
        ("Дай А. Петрову ключи", ["Дай А. Петрову ключи"]),
        ("Хм, дай подумать. Написать И. Иванову", ["Написать И. Иванову"]),
        # An initial after the name lost its dot with the item's closing punctuation.
        ("позвонить Петрову В.", ["позвонить Петрову В."]),
        ("Позвонить Петрову В.В.", ["Позвонить Петрову В.В."]),
        ("call Smith J.", ["call Smith J."]),
        ("Написать А.С. Пушкину; email J. R. R. Tolkien",
         ["Написать А.С. Пушкину", "email J. R. R. Tolkien"]),
        # What is no initial is read as before.
        ("a. milk", ["milk"]),
        ("купить хлеб.", ["купить хлеб"]),
        ("Купить витамин C.", ["Купить витамин C"]),
    ],
)  # fmt: skip
def test_a_brain_dump_item_keeps_a_name_s_initial(message: str, items: list[str]) -> None:
    assert brain_dump.split_items(message) == items


def test_the_inbox_collector_saves_and_confirms_the_name_with_its_initial() -> None:
    out = run(said("inbox_collector", "В. Петрову позвонить\nemail J. Smith"))
    assert out.extracted_data == {"inbox_items": ["В. Петрову позвонить", "email J. Smith"]}
    assert "В. Петрову позвонить; email J. Smith" in out.message, out.message


@pytest.mark.parametrize(
    ("message", "item"),
    [
        ("Напомни позвонить Петрову В.", "позвонить Петрову В."),
        ("Позвонить Петрову В. — запиши в inbox", "Позвонить Петрову В."),
        ("remind me to call Smith J.", "call Smith J."),
        ("Add to my inbox: call J. Smith", "call J. Smith"),
        ("Напомни купить хлеб.", "купить хлеб"),
    ],
)
def test_an_inbox_request_keeps_a_name_s_initial(message: str, item: str) -> None:
    assert inbox_requests.inbox_request(message) == item


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        # An initial's dot ended the sentence, and the fact with it: "проект с В".
        ("Работа важна: проект с В. Петровым", {"work": "Работа важна: проект с В. Петровым"}),
        ("Work matters: my project with J. Smith",
         {"work": "Work matters: my project with J. Smith"}),
        ("Семья: сын J. Smith. Работа: проект с В.В. Петровым",
         {"relationships": "сын J. Smith", "work": "проект с В.В. Петровым"}),
        # After a name, an initial's dot may still end the sentence; the initial keeps it.
        ("Семья: мама и Петров В. Работа важна.",
         {"relationships": "мама и Петров В.", "work": "Работа важна"}),
        ("Health: my coach Smith J. Work comes second",
         {"health": "my coach Smith J.", "work": "Work comes second"}),
    ],
)  # fmt: skip
def test_a_priority_fact_keeps_a_name_s_initial(message: str, facts: dict[str, str]) -> None:
    assert lang.areas_in(message) == facts
    assert run(said("discovery", message)).extracted_data == {"facts": facts}
