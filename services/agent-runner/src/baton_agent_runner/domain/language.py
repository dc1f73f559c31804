"""Reading a user's message: its language, life areas, readiness and confirmation."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

Lang = Literal["ru", "en"]

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LATIN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?", re.IGNORECASE)
CLEAR_LATIN_WORDS = 3
"""A Latin-only message of fewer words ("ok", "done", "got it") may be either language's."""

# Patterns matched at a word's start (`\b` before them), on lowercase text with "ё" read as
# "е": a bare stem is a prefix ("работ" finds "работе"), a trailing `\b` makes a whole word
# where a prefix would catch other words ("рост" in "просто" and "роста" alike, "сон" in
# "сонный", "work" in "workout").
AREAS: dict[str, tuple[str, ...]] = {
    "work": (
        r"work(?:s|ing)?\b", r"jobs?\b", "career", "business",
        "работ", "заработ", "карьер", "бизнес",
    ),
    "health": (
        "health", "sport", "fitness", r"gym\b", r"workouts?\b", "exercis", "sleep",
        "здоровь", r"здоров(?:ый|ая|ое|ые|ым|ой|ыми|ого|ом)?\b", "спорт", "фитнес",
        "трениров", r"(?:сон|сна|сну|сном|сне)\b", "высып", "выспа",
    ),
    "relationships": (
        "relationship", r"famil(?:y|ies)\b", "friend", "partner", r"wife\b", "husband", r"kids?\b",
        "children", "отношени", r"семь(?:я|и|е|ю|ей)\b", "семейн", "друз", "подруг", "партнер",
        r"муж(?:а|у|ем|е)?\b", r"жен(?:а|ы|у|ой|е)\b", r"дет(?:и|ей|ям|ьми|ях)\b",
    ),
    "growth": (
        "growth", r"grow(?:s|ing)?\b", "learn", r"stud(?:y|ies|ying)\b",
        r"develop(?:ing|ment)?\b", "educat",
        "развити", "развива", "саморазвит", "учеб", "обучени", r"уч(?:усь|иться|ишься)\b",
        r"рост(?:а|у|ом|е)?\b", "образовани",
    ),
    "hobbies": (
        r"hobb(?:y|ies)\b", "music", "guitar", "painting", "drawing",
        "хобби", "увлечени", "увлека", "музык", "гитар", "рисова",
    ),
}  # fmt: skip
_AREA_PATTERNS = {
    area: re.compile(r"\b(?:" + "|".join(stems) + ")") for area, stems in AREAS.items()
}
AREA_NAMES: dict[Lang, dict[str, str]] = {
    "en": {a: a for a in AREAS},
    "ru": {
        "work": "работа",
        "health": "здоровье",
        "relationships": "отношения",
        "growth": "развитие",
        "hobbies": "хобби",
    },
}

# Phrases are matched as whole words on the normalised text (lowercase, "е" for "ё").
_READY = (
    "понял", "поняла", "понятно", "давай", "давайте", "поехали", "готов", "готова", "ок",
    "got it", "let's go", "lets go", "ready", "ok", "okay", "sure", "go ahead",
)  # fmt: skip
_WAIT = ("подожди", "погоди", "пока нет", "еще нет", "not yet", "wait", "hold on")
_NEXT_QUESTION = (
    "что дальше", "что теперь", "какой следующий", "what's next", "what next", "what now",
    "next step",
)  # fmt: skip
_CONFUSED = (
    "непонятно", "неясно", "запутал", "запуталась", "запутался", "в смысле", "confused",
    "unclear", "what do you mean",
)  # fmt: skip
_UNDERSTOOD = (
    "понял", "поняла", "понятно", "понимаю", "ясно", "уверен", "уверена",
    "understand", "understood", "get it", "got it", "clear", "sure",
)  # fmt: skip
"""Said with a negation before them ("не понятно", "not sure"), these are confusion."""
_CONFIRM = (
    "да", "верно", "правильно", "точно", "все так", "yes", "yeah", "yep", "correct", "right",
    "exactly",
)  # fmt: skip
_DENY_FIRST = ("нет", "не", "неа", "no", "nope", "not")
_DENY = ("да нет", "не так", "неверно", "неправильно", "wrong", "incorrect")
_NEGATIONS = frozenset({"не", "нет", "ни", "not", "never", "cannot"})
_CLAUSE = re.compile(r"[.,;:!?()\n]+|\s[—–-]\s|\b(?:но|а|but|though)\b")


def language_of(text: str) -> Lang:
    """Russian when the text has Cyrillic letters, else English."""
    return "ru" if _CYRILLIC.search(text) else "en"


def clear_language(text: str) -> Lang | None:
    """Russian for Cyrillic letters, English for several Latin words; None when it could be
    either ("ok", "done", "👍")."""
    if _CYRILLIC.search(text):
        return "ru"
    return "en" if len(_LATIN_WORD.findall(text)) >= CLEAR_LATIN_WORDS else None


def language_in(message: str, earlier: Iterable[str]) -> Lang:
    """The message's language when it is clear; else that of the latest clear one of the
    user's `earlier` messages (oldest first); else the message's own guess."""
    for text in [message, *reversed(list(earlier))]:
        found = clear_language(text)
        if found is not None:
            return found
    return language_of(message)


def normalised(text: str) -> str:
    """Lowercase, one apostrophe, "е" for "ё": how phrases and stems are compared."""
    return text.lower().replace("’", "'").replace("ё", "е")


def words(text: str) -> list[str]:
    """The words of `text`, normalised, punctuation dropped."""
    return re.findall(r"[\w']+", normalised(text))


def _clauses(text: str) -> list[list[str]]:
    return [words(clause) for clause in _CLAUSE.split(normalised(text))]


def _at(tokens: list[str], phrase: str) -> list[int]:
    """Where the words of `phrase` start in `tokens`."""
    want = phrase.split()
    return [i for i in range(len(tokens)) if tokens[i : i + len(want)] == want]


def _negated(tokens: list[str], at: int) -> bool:
    return any(t in _NEGATIONS or t.endswith("n't") for t in tokens[:at])


def _said(text: str, phrases: tuple[str, ...], *, negated: bool) -> bool:
    """Some phrase is in `text`, with (or without) a negation before it in its clause."""
    return any(
        _negated(tokens, at) == negated
        for tokens in _clauses(text)
        for phrase in phrases
        for at in _at(tokens, phrase)
    )


def has_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    """Some phrase is in `text` as whole words, negated or not."""
    padded = " " + " ".join(words(text)) + " "
    return any(f" {p} " in padded for p in phrases)


def is_confused(text: str) -> bool:
    """The user says they do not understand ("непонятно", "не понял", "not sure")."""
    return has_phrase(text, _CONFUSED) or _said(text, _UNDERSTOOD, negated=True)


def is_not_ready(text: str) -> bool:
    """A readiness word negated in its clause ("я пока не готов", "not ready") or a plea to
    wait ("подожди", "not yet")."""
    return has_phrase(text, _WAIT) or _said(text, _READY, negated=True)


def is_ready(text: str) -> bool:
    """Readiness words ("понял", "поехали", "got it", ...) without confusion or negation."""
    if is_confused(text) or is_not_ready(text):
        return False
    return _said(text, _READY, negated=False)


def asks_next_step(text: str) -> bool:
    """A question about what comes next."""
    return has_phrase(text, _NEXT_QUESTION) or bool(re.search(r"\bдальше\s*\?", normalised(text)))


def denies(text: str) -> bool:
    """A "no": the message starts with "нет"/"no"/"not", or negates a confirmation
    ("не совсем верно", "that's not right")."""
    tokens = words(text)
    if tokens and tokens[0] in _DENY_FIRST:
        return True
    return has_phrase(text, _DENY) or _said(text, _CONFIRM, negated=True)


def confirms(text: str) -> bool:
    """A short confirmation ("да", "верно", "yes", "correct"), neither negated nor a
    correction naming an area."""
    if is_confused(text) or denies(text) or areas_in(text):
        return False
    return _said(text, _CONFIRM, negated=False)


def areas_in(text: str) -> dict[str, str]:
    """Life areas the text talks about, each with the clause that mentions it."""
    found: dict[str, str] = {}
    for clause in re.split(r"[.;!?\n]+|,\s+(?:а|и|but|and)\s+", text):
        lowered = normalised(clause)
        for area, pattern in _AREA_PATTERNS.items():
            if area not in found and pattern.search(lowered):
                found[area] = clause.strip()
    return found
