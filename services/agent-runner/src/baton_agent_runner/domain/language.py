"""Reading a user's message: its language, life areas, readiness and confirmation."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Literal

Lang = Literal["ru", "en"]

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LATIN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?", re.IGNORECASE)
CLEAR_LATIN_WORDS = 3
"""A Latin-only message of fewer words ("ok", "done", "got it") may be either language's."""

# Patterns matched at a word's start (`\b` before them), on lowercase text with "ё" read as
# "е": a bare stem is a prefix ("работ" finds "работе"), a trailing `\b` makes a whole word
# where a prefix would catch other words ("рост" in "просто" and "роста" alike, "сон" in
# "сонный", "work" in "workout", which is health; "homework" never starts with "work").
AREAS: dict[str, tuple[str, ...]] = {
    "work": (
        r"(?:co-?)?work(?:s|ed|ing|ers?|loads?|places?|days?|life)?\b", r"jobs?\b", "career",
        "business", "работ", "заработ", "подработ", "переработ", "карьер", "бизнес",
    ),
    "health": (
        "health", "sport", "fitness", r"gym\b", r"workouts?\b", "exercis", "sleep",
        "здоровь", r"здоров(?:ый|ая|ое|ые|ым|ой|ыми|ого|ом)?\b", "спорт", "фитнес",
        "трениров", r"(?:сон|сна|сну|сном|сне)\b", "высып", "выспа",
    ),
    "relationships": (
        "relationship", r"famil(?:y|ies)\b", r"(?:girl|boy|best)?friend(?!l)", "partner",
        r"wife\b", "husband", r"kids?\b", "children",
        "отношени", r"семь(?:я|и|е|ю|ей)\b", "семейн", "друз", "подруг", "партнер",
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
    "can't wait", "cant wait", "cannot wait", "начнем", "начинаем", "let's start", "lets start",
    "let's begin", "lets begin",
)  # fmt: skip
_WAIT = ("подожди", "погоди", "пока нет", "еще нет", "not yet", "wait", "hold on")
# "Вопросов пока нет" answers the greeter's "any questions?": its "пока нет" is no "not yet".
_NO_QUESTIONS = re.compile(
    r"\b(?:(?:пока|еще|больше)\s+)?(?:нет|никаких)\s+(?:(?:пока|еще|больше)\s+)?вопрос\w*"
    r"|\bвопрос\w*\s+(?:(?:у\s+меня|пока|еще|больше|вроде|тоже)\s+)*нет\b"
)
_NEXT_QUESTION = (
    "что дальше", "что теперь", "какой следующий", "what's next", "what next", "what now",
    "next step",
)  # fmt: skip
# A question ending on "дальше", "потом" or "next" ("А дальше что?", "What happens next?").
_NEXT_ASKED = re.compile(r"\b(?:(?:дальше|потом)(?:\s+что)?|next)\s*\?")
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
# After a leading "нет,"/"no," these still confirm: "Нет, всё верно", "No, that's right".
_STILL_RIGHT = (
    "верно", "правильно", "все так", "точно", "that's right", "thats right", "that is right",
    "that's correct", "that is correct", "exactly",
)  # fmt: skip
_FIX = r"(?:менять|меняй|исправлять|исправляй|править|правь|поправлять|поправь)"
# Confirmations made of "no" words: "Yes, nothing wrong", "ничего не нужно менять".
_ALL_GOOD = re.compile(
    rf"\bничего\s+(?:не\s+(?:нужно|надо)\s+{_FIX}|{_FIX}\s+не\s+(?:нужно|надо)|не\s+{_FIX})\b"
    rf"|\b{_FIX}\s+ничего\s+не\s+(?:нужно|надо)\b"
    r"|\bnothing(?:'s|\s+is)?\s+(?:wrong|to\s+(?:change|fix|correct))\b"
)
_DENY = ("да нет", "не так", "неверно", "неправильно", "wrong", "incorrect")
_NEGATIONS = frozenset({
    "не", "ни", "not", "never", "cannot", "dont", "didnt", "doesnt", "cant", "isnt", "arent",
    "wasnt", "havent",
})  # fmt: skip
""""нет" is none: before a word it answers a question ("Нет, давай", "Вопросов нет давай")."""
# Words that may stand between a negation and the word it negates ("не совсем понятно", "not
# yet ready", "I don't think I'm ready"); any other word ends its reach, so "не знаю давай"
# and "I don't know, let's go" are ready.
_SOFTENERS = frozenset({
    "совсем", "очень", "вполне", "пока", "еще", "до", "конца", "особо", "полностью", "так",
    "то", "чтобы", "думаю", "что", "я", "yet", "quite", "really", "fully", "entirely",
    "completely", "totally", "so", "very", "too", "that", "all", "think", "i", "i'm", "im",
    "am", "feel",
})  # fmt: skip
_REACH = 3
"""At most this many softeners between a negation and its word."""
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


@cache
def _by_first_word(phrases: tuple[str, ...]) -> dict[str, tuple[list[str], ...]]:
    """The phrases of a (constant) phrase list by their first word, split into words once."""
    index: dict[str, list[list[str]]] = {}
    for phrase in phrases:
        want = phrase.split()
        index.setdefault(want[0], []).append(want)
    return {first: tuple(wants) for first, wants in index.items()}


def _starts(tokens: list[str], phrases: tuple[str, ...]) -> Iterable[int]:
    """Where some phrase's words start in `tokens`: one pass over the tokens, not one per
    phrase (a turn reads its message against about a hundred phrases)."""
    index = _by_first_word(phrases)
    for i, token in enumerate(tokens):
        for want in index.get(token, ()):
            if tokens[i : i + len(want)] == want:
                yield i


def _negation(token: str) -> bool:
    return token in _NEGATIONS or token.endswith("n't")


def _negated(tokens: list[str], at: int) -> bool:
    """A negation anywhere before `at` in its clause: how a confirmation is denied ("I don't
    think that's right")."""
    return any(_negation(t) for t in tokens[:at])


def _negated_next_to(tokens: list[str], at: int) -> bool:
    """A negation right before `at`, or with only softeners between ("not quite ready")."""
    for back in range(at - 1, max(at - 2 - _REACH, -1), -1):
        if _negation(tokens[back]):
            return True
        if tokens[back] not in _SOFTENERS:
            return False
    return False


def _said(text: str, phrases: tuple[str, ...], *, negated: bool) -> bool:
    """Some phrase is in `text`, with (or without) a negation before it in its clause."""
    return any(
        _negated(tokens, at) == negated
        for tokens in _clauses(text)
        for at in _starts(tokens, phrases)
    )


def _hits(tokens: list[str], phrases: tuple[str, ...], *, negated: bool) -> bool:
    """Some phrase is in the clause `tokens`, with (or without) a negation right before it."""
    return any(_negated_next_to(tokens, at) == negated for at in _starts(tokens, phrases))


def has_phrase(text: str, phrases: tuple[str, ...]) -> bool:
    """Some phrase is in `text` as whole words, negated or not."""
    padded = " " + " ".join(words(text)) + " "
    return any(f" {p} " in padded for p in phrases)


Readiness = Literal["confused", "waiting", "ready"]


@lru_cache(maxsize=64)  # a turn asks it up to three times of the same message
def readiness(text: str) -> Readiness | None:
    """What the last clause that speaks of readiness says: confusion ("непонятно", "I don't get
    it"), a plea to wait ("подожди", "не готов", "not yet") or readiness ("поехали", "let's go"),
    so that "I'm not sure, but let's go" is ready and "Понял, но подожди" is not."""
    said: Readiness | None = None
    for tokens in _clauses(_NO_QUESTIONS.sub(" ", normalised(text))):
        padded = " " + " ".join(tokens) + " "
        if any(f" {p} " in padded for p in _CONFUSED) or _hits(tokens, _UNDERSTOOD, negated=True):
            said = "confused"
        elif _hits(tokens, _WAIT, negated=False) or _hits(tokens, _READY, negated=True):
            said = "waiting"
        elif _hits(tokens, _READY, negated=False):
            said = "ready"
    return said


def is_confused(text: str) -> bool:
    """The user says they do not understand ("непонятно", "не понял", "not sure")."""
    return readiness(text) == "confused"


def is_not_ready(text: str) -> bool:
    """A readiness word negated ("я пока не готов", "not ready") or a plea to wait ("подожди",
    "not yet"; not "can't wait", nor "вопросов пока нет")."""
    return readiness(text) == "waiting"


def is_ready(text: str) -> bool:
    """Readiness words ("понял", "поехали", "got it", ...), not negated, and no confusion or
    plea to wait after them."""
    return readiness(text) == "ready"


def asks_next_step(text: str) -> bool:
    """A question about what comes next ("Что дальше?", "А потом что?", "What comes next?")."""
    return has_phrase(text, _NEXT_QUESTION) or bool(_NEXT_ASKED.search(normalised(text)))


def denies(text: str) -> bool:
    """A "no": "неверно", "wrong", "да нет", a negated confirmation ("не совсем верно", "that's
    not right"), or a message that starts with "нет"/"no"/"not" and does not go on to confirm
    ("Нет, всё верно", "No, that's right" and "nothing wrong" are no denials)."""
    said = _ALL_GOOD.sub(",", normalised(text))
    if has_phrase(said, _DENY) or _said(said, _CONFIRM, negated=True):
        return True
    tokens = words(said)
    if not tokens or tokens[0] not in _DENY_FIRST:
        return False
    all_good = said != normalised(text)
    return not all_good and not _said(said, _STILL_RIGHT, negated=False)


def confirms(text: str) -> bool:
    """A short confirmation ("да", "верно", "yes", "correct", "nothing wrong"), neither
    negated nor a correction naming an area."""
    if is_confused(text) or denies(text) or areas_in(text):
        return False
    said = normalised(text)
    return bool(_ALL_GOOD.search(said)) or _said(said, _CONFIRM, negated=False)


def areas_in(text: str) -> dict[str, str]:
    """Life areas the text talks about, each with the clause that mentions it."""
    found: dict[str, str] = {}
    for clause in re.split(r"[.;!?\n]+|,\s+(?:а|и|but|and)\s+", text):
        lowered = normalised(clause)
        for area, pattern in _AREA_PATTERNS.items():
            if area not in found and pattern.search(lowered):
                found[area] = clause.strip()
    return found
