"""A request to skip the step or move on ("пропусти", "давай дальше", "можно пропустить этот
шаг?", "skip this", "let's move on"), or to skip an area ("давай пропустим хобби"), as
discovery reads them."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

from itertools import pairwise

from baton_agent_runner.domain.area_cases import nominative
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


# Skipping an area asked about declines it ("давай пропустим хобби", "skip hobbies",
# "пропустить хобби"): a verb of skipping with the areas' names as discovery asks with them (in
# any case: "пропустим работу") and `_AROUND`'s words alone, or "про", "about" ("let's skip
# the part about hobbies"). Not what an errand skips ("прогулять работу", "skip the gym",
# "skip work tomorrow"), nor a part that says more ("work is my priority").
_SKIP_AN_AREA = frozenset({
    "skip", "пропусти", "пропустим", "пропустить", "пропускаем", "пропускай", "пропустите",
})  # fmt: skip
_AREA_NAMES = frozenset({
    "work", "health", "relationships", "relationship", "growth", "hobbies", "hobby", "finances",
    "работа", "здоровье", "отношения", "развитие", "хобби", "финансы",
})  # fmt: skip
_ABOUT = frozenset({"про", "о", "об", "about", "тему", "topic", "and", "or", "и", "или"})
_AREA_SKIP_WORDS = 10


def skips_areas(clause: str) -> bool:
    """The clause only asks to skip the life areas it names ("давай пропустим хобби", "skip
    hobbies", "пропустить хобби и здоровье"): they are declined. "давай пропустим хобби" was
    kept as the hobbies fact, and "skip hobbies" named none, so discovery asked for hobbies
    again."""
    said = words(clause)
    if not (_SKIP_AN_AREA.intersection(said) and len(said) <= _AREA_SKIP_WORDS):
        return False
    if any(word in _NOT and after in _SKIP_AN_AREA for word, after in pairwise(said)):
        return False  # "не пропускай хобби"
    others = [word for word in said if word not in _SKIP_AN_AREA | _AROUND | _ABOUT]
    return bool(others) and all(nominative(word) in _AREA_NAMES for word in others)
