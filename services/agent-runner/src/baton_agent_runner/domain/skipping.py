"""A request to skip the step or move on ("пропусти", "давай дальше", "можно пропустить этот
шаг?", "skip this", "let's move on"), as discovery reads it."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from itertools import pairwise

from baton_agent_runner.domain.wording import has_phrase, words

_SKIP = frozenset({
    "пропусти", "пропустим", "пропустить", "пропускаем", "пропускай", "пропустите", "пропускаю",
    "дальше", "далее", "skip", "skipping", "next",
})  # fmt: skip
# Words a request to skip may carry beside it: "давай", "можно", "этот шаг", "please", "the
# next step", "ну", "уже"; anything else says something more ("что дальше?" asks).
_AROUND = frozenset({
    "можно", "давай", "давайте", "этот", "эту", "это", "шаг", "этап", "вопрос", "вопросы",
    "часть", "пожалуйста", "плиз", "уже", "ну", "а", "и", "ок", "окей", "хочу", "я", "мы",
    "может", "просто", "к", "следующему", "следующий", "шагу", "переходим", "перейдём",
    "перейдем", "идём", "идем", "го", "let's", "lets", "let", "us", "me", "can", "could", "we",
    "i", "just", "please", "pls", "this", "that", "step", "part", "the", "questions", "question",
    "to", "go", "ok", "okay", "so", "one", "want", "move", "on", "already", "не", "отвечать",
    "don't", "dont", "answer",
})  # fmt: skip
_NOT = frozenset({"не", "don't", "dont"})
_MOVING_ON = ("move on", "moving on", "next step", "следующий шаг", "следующему шагу")


def asks_to_skip(message: str) -> bool:
    """The message only asks to skip the step or move on: a word of skipping ("пропусти",
    "дальше", "skip", "next") or a phrase of it ("let's move on", "к следующему шагу"), with
    nothing but `_AROUND`'s words beside it ("не хочу отвечать, дальше"; not "не пропускай").
    It got "I did not quite get that", never why the step waits ("Можно пропустить этот
    шаг?"), and to the summary it confirmed nothing."""
    said = words(message)
    if not said or not all(word in _SKIP or word in _AROUND for word in said):
        return False
    if any(word in _NOT and after in _SKIP for word, after in pairwise(said)):
        return False  # "не пропускай", "don't skip"
    return bool(_SKIP.intersection(said)) or has_phrase(message, _MOVING_ON)
