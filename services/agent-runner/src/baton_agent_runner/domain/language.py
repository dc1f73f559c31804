"""Reading a user's message: its language, the life areas it names, and confirmation."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from baton_agent_runner.domain.areas import (
    AREA_PATTERNS,
    AREAS,
    MATTERS,
    UNIMPORTANT,
    _around,
    named_in,
    trimmed,
)
from baton_agent_runner.domain.brain_dump import says_done
from baton_agent_runner.domain.listings import listed_bare, parts_of
from baton_agent_runner.domain.readiness import is_confused
from baton_agent_runner.domain.wording import (
    INITIAL_DOT,
    has_phrase,
    is_negation,
    normalised,
    said,
    without_end,
    words,
)

Lang = Literal["ru", "en"]

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LATIN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?", re.IGNORECASE)
CLEAR_LATIN_WORDS = 3
"""A Latin-only message of fewer words ("ok", "done", "got it") may be either language's."""

# Words that may stand between a negation and the area it declines ("у меня нет хобби", "I
# don't have any hobbies", "мне не важна работа"), and after the area before its "нет".
_BETWEEN = frozenset({
    "у", "меня", "нас", "мне", "особо", "вообще", "сейчас", "пока", "никакого", "никаких",
    "have", "has", "any", "really", "much", "time", "for", "about", "care", "i", "i've", "my",
    "me", "right", "now", "is", "are", "a", "the", "important", "важна", "важно", "важен",
    "главное", "про", "о", "об", "all", "пожалуйста", "please", "from",
})  # fmt: skip
# And words that may stand only after the area, before what it says of it ("Работа для меня
# не главное", "Работа — это не важно", "hobbies do not matter"): before it they would join a
# "нет" to what it answers ("нет, это работа").
_AFTER = frozenset({"для", "это", "do", "does", "to"})
_DECLINE_REACH = 4
# Pointing at an area as the wrong one, without saying what is right ("кроме работы").
_WRONG = frozenset({"кроме", "except", "wrong", "неверно", "неправильно", "насчет", "apart"})
# Asking to take an area out of the summary: it is declined too.
_REMOVE = frozenset({
    "убери", "уберите", "удали", "удалите", "вычеркни", "забудь", "убрать", "удалить",
    "remove", "delete", "drop", "forget", "scrap",
})  # fmt: skip
# "No" words that are no negation of the word after them ("нет" answers a question in
# `wording`), but decline an area before it: "нет хобби", "no hobbies", "neither work nor
# hobbies".
_NO = frozenset({"нет", "no", "neither", "nor"})
# A negation that ends a phrase after an area leaves out what it negates: "hobbies don't",
# "хобби не".
_ELLIPTIC = frozenset({
    "не", "not", "don't", "doesn't", "isn't", "aren't", "dont", "doesnt", "isnt", "arent",
})  # fmt: skip
_PHRASE_START = re.compile(r"[,:—–]|\s-\s")
_CLAUSE_END = re.compile(rf"(?:(?!{INITIAL_DOT})[.;!?\n])+|,\s+(?:а|и|but|and)\s+")
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

_CONFIRM = (
    "да", "верно", "правильно", "точно", "все так", "ага", "угу", "ок", "окей", "именно",
    "так и есть", "yes", "yeah", "yep", "yup", "correct", "right", "exactly", "ok", "okay",
    "sure", "perfect", "all good", "looks good", "sounds good", "подтверждаю", "согласен",
    "согласна", "i confirm", "confirmed", "agreed", "i agree",
)  # fmt: skip
_DENY_FIRST = ("нет", "не", "неа", "no", "nope", "not")
# After a leading "нет,"/"no," these still confirm: "Нет, всё верно", "No, that's right".
_STILL_RIGHT = (
    "верно", "правильно", "все так", "точно", "that's right", "thats right", "that is right",
    "that's correct", "that is correct", "exactly",
)  # fmt: skip
_FIX = r"(?:менять|меняй|исправлять|исправляй|править|правь|поправлять|поправь)"
# Confirmations made of "no" words: "Yes, nothing wrong", "ничего не нужно менять"; and the
# answers to "Anything to add?", which a summary not yet closed asks ("nope, nothing to add").
_ALL_GOOD = re.compile(
    rf"\bничего\s+(?:не\s+(?:нужно|надо)\s+{_FIX}|{_FIX}\s+не\s+(?:нужно|надо)|не\s+{_FIX})\b"
    rf"|\b{_FIX}\s+ничего\s+не\s+(?:нужно|надо)\b"
    r"|\bnothing(?:'s|\s+is)?\s+(?:wrong|to\s+(?:change|fix|correct))\b"
    r"|\bnothing\s+(?:else\s+|more\s+)?to\s+add\b|\bnothing\s+(?:else|more)\b"
    r"|\bнечего\s+добавить\b|\bдобавить\s+нечего\b|\bничего\s+(?:не\s+)?добав\w*"
    r"|\bбольше\s+ничего\b"
)
_DENY = ("да нет", "не так", "неверно", "неправильно", "wrong", "incorrect")


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


def denies(text: str) -> bool:
    """A "no": "неверно", "wrong", "да нет", a negated confirmation ("не совсем верно", "that's
    not right"), an area said to be wrong ("всё верно, кроме работы"), or a message that
    starts with "нет"/"no"/"not" and does not go on to confirm ("Нет, всё верно", "No, that's
    right" and "nothing wrong" are no denials)."""
    told = _ALL_GOOD.sub(",", normalised(text))
    if has_phrase(told, _DENY) or said(told, _CONFIRM, negated=True) or _wrong_areas(text):
        return True
    tokens = words(told)
    if not tokens or tokens[0] not in _DENY_FIRST:
        return False
    all_good = told != normalised(text)
    return not all_good and not said(told, _STILL_RIGHT, negated=False)


def confirms(text: str) -> bool:
    """A short confirmation ("да", "верно", "yes", "correct", "nothing wrong"), neither
    negated nor a correction naming an area."""
    if is_confused(text) or denies(text) or areas_in(text):
        return False
    told = normalised(text)
    return bool(_ALL_GOOD.search(told)) or said(told, _CONFIRM, negated=False)


def finishes(text: str) -> bool:
    """ "That's all", "done", "готово", "всё", as the brain dump reads them, naming no area:
    nothing to add or correct ("Всё?", asked, says nothing yet)."""
    return says_done(text) and not areas_in(text) and not _wrong_areas(text)


def areas_in(text: str) -> dict[str, str]:
    """Life areas the text talks about as priorities, each with the clause that mentions it;
    not those it says the user has not or that do not matter ("у меня нет хобби", "work isn't
    a priority", "не работа, а здоровье": health only), nor one it only says is wrong ("всё
    верно, кроме работы")."""
    return {area: clause for area, clause, said in _mentions(text) if said == "named"}


def declined_areas(text: str) -> set[str]:
    """The areas the text names only to say they are no priority ("У меня нет хобби")."""
    return {area for area, _, said in _mentions(text) if said == "declined"}


def _wrong_areas(text: str) -> set[str]:
    """The areas the text names only to say they are wrong ("кроме работы", "wrong about")."""
    return {area for area, _, said in _mentions(text) if said == "wrong"}


Mention = Literal["named", "declined", "wrong"]


def _mentions(text: str) -> list[tuple[str, str, Mention]]:
    """Each area a clause of the text names, its part of the clause, and what it says of it:
    named (any of its words in the clause), else wrong, else declined."""
    found: dict[str, tuple[str, str, Mention]] = {}
    for clause in _clauses(text):
        lowered = normalised(clause)
        parts, bare = parts_of(clause), listed_bare(lowered)
        for area, pattern in AREA_PATTERNS.items():
            said = {_said_of(lowered, hit.start(), bare) for hit in pattern.finditer(lowered)}
            for kind in ("named", "wrong", "declined"):
                if kind in said and (area not in found or found[area][2] != "named"):
                    found[area] = (area, trimmed(parts.get(area, clause)), kind)
                    break
    return list(found.values())


def _clauses(text: str) -> list[str]:
    """The clauses of `text`: parted at sentence ends and at ", а", ", и", ", but", ", and";
    an initial's dot is no sentence end, and one after a name stays ("Петров В."); nor is the
    comma of a listing before its last area (`_last_of_a_listing`)."""
    found, start = [], 0
    for end in [*_CLAUSE_END.finditer(text), None]:
        if end is not None and _last_of_a_listing(text[start : end.start()], text, end):
            continue
        clause = text[start : len(text) if end is None else end.start()]
        if end is not None and end.group().startswith("."):
            clause = without_end(clause + ".", ".")  # the dot back, if an initial's
        found.append(clause)
        start = len(text) if end is None else end.end()
    return found


def _last_of_a_listing(before: str, text: str, end: re.Match[str]) -> bool:
    """ ", and"/", и" at `end` brings the last area of a listing (the Oxford comma: "Work,
    health, and hobbies don't matter"), not a clause of its own: what comes before it lists
    areas parted by commas, all bare but the first, which ends on its area ("For me work,
    health"), and an area comes after it. "I love work, and hobbies don't matter" is two."""
    if words(end.group())[-1:] not in (["and"], ["и"]):
        return False
    first, *rest = before.split(",")
    after = re.split(r"[,.;:!?\n]", text[end.end() :], maxsplit=1)[0]
    if not (rest and named_in(first) and named_in(after)):
        return False
    return not _around(first)[1] and all(_around(piece) == ([], []) for piece in rest)


def _said_of(clause: str, at: int, bare: list[tuple[int, int, int]]) -> Mention:
    """What the clause says of the area word at `at` (`_said_to`), or, for one listed `bare`
    before another, what it says after that one ("Hobbies and work don't matter" declines
    both; "I have work and no hobbies" only hobbies)."""
    said = _said_to(clause, at)
    if said == "named":
        shared = [other for start, end, other in bare if start <= at < end]
        if shared and _declined_after(words(clause[shared[0] :])[1:]):
            return "declined"
    return said


def _said_to(clause: str, at: int) -> Mention:
    """What the clause says of the area word at `at`: "wrong" after "кроме", "except", "wrong
    about", with nothing after it; "declined" after a negation or "neither"/"nor", past words
    such as "have", "any", "у меня" ("нет хобби", "I don't have any hobbies"), asked to be
    taken out ("убери хобби"), with a "нет" after it ("хобби у меня нет"), a negation ending
    its phrase ("hobbies don't"), its importance negated ("работа не важна", "isn't a
    priority") or said to be none (`UNIMPORTANT`: "хобби неважны", "means nothing to me");
    else "named". A "no" answering the summary ("No, work means
    ...") is a phrase of its own."""
    before, after = words(_PHRASE_START.split(clause[:at])[-1]), words(clause[at:])[1:]
    for back in range(len(before) - 1, max(len(before) - 1 - _DECLINE_REACH, -1), -1):
        token = before[back]
        if token in _WRONG:  # with what is right after it, a correction like any other
            return "wrong" if set(after) <= _BETWEEN else "named"
        if token in _REMOVE:  # "Убери хобби", "forget about work"; not "не забудь про спорт"
            return "declined" if back == 0 or not is_negation(before[back - 1]) else "named"
        if is_negation(token) or token in _NO:
            return "declined"
        if token not in _BETWEEN:
            break
    phrase = words(_PHRASE_START.split(clause[at:])[0])[1:]
    if phrase and phrase[-1] in _ELLIPTIC and set(phrase[:-1]) <= _BETWEEN | _AFTER:
        return "declined"  # "Work and health matter, hobbies don't"
    return "declined" if _declined_after(after) else "named"


def _declined_after(after: list[str]) -> bool:
    """The words after an area say it does not matter: "нет", its importance negated, or said
    to be none (`UNIMPORTANT`)."""
    for n, token in enumerate(after[:_DECLINE_REACH]):
        if token == "нет" or (is_negation(token) and _matters(after[n + 1 : n + 3])):
            return True
        if UNIMPORTANT.match(" ".join(after[n:])):  # "неважны", "means nothing to me"
            return True
        if token not in _BETWEEN and token not in _AFTER:
            break
    return False


def _matters(tokens: list[str]) -> bool:
    return any(token.startswith(MATTERS) for token in tokens)
