"""Reading a user's message: its language, the life areas it names, and confirmation."""

# ruff: noqa: RUF001, RUF002  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from baton_agent_runner.domain.areas import AREA_PATTERNS, AREAS, around, named_in, trimmed
from baton_agent_runner.domain.brain_dump import says_done
from baton_agent_runner.domain.finishing import NOTHING_COMES
from baton_agent_runner.domain.listings import listed_after, listed_bare, parts_of
from baton_agent_runner.domain.mentions import Mention, said_of
from baton_agent_runner.domain.readiness import is_confused
from baton_agent_runner.domain.wording import (
    INITIAL_DOT,
    has_phrase,
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

_CLAUSE_END = re.compile(rf"(?:(?!{INITIAL_DOT})[.;!?\n])+|,\s+(?:а|и|but|and)\s+")
AREA_NAMES: dict[Lang, dict[str, str]] = {
    "en": {a: a for a in AREAS},
    "ru": {
        "work": "работа",
        "health": "здоровье",
        "relationships": "отношения",
        "growth": "развитие",
        "hobbies": "хобби",
        "finances": "финансы",
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
    rf"|\b(?:{NOTHING_COMES})\b"  # "Nothing comes to mind" to "Anything to add?"
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


def areas_said(text: str) -> tuple[dict[str, str], set[str]]:
    """`areas_in` and `declined_areas` of the text, read once ("I said work, not health": work,
    and health declined)."""
    mentions = _mentions(text)
    named = {area: clause for area, clause, said in mentions if said == "named"}
    return named, {area for area, _, said in mentions if said == "declined"}


def declined_areas(text: str) -> set[str]:
    """The areas the text names only to say they are no priority ("У меня нет хобби")."""
    return {area for area, _, said in _mentions(text) if said == "declined"}


def _wrong_areas(text: str) -> set[str]:
    """The areas the text names only to say they are wrong ("кроме работы", "wrong about")."""
    return {area for area, _, said in _mentions(text) if said == "wrong"}


_PATTERNS = tuple(AREA_PATTERNS.items())
_ANY_AREA = re.compile("|".join(pattern.pattern for pattern in AREA_PATTERNS.values()))
"""Whether any area's pattern matches: the same patterns, searched once."""


def _mentions(text: str) -> list[tuple[str, str, Mention]]:
    """Each area a clause of the text names, its part of the clause, and what it says of it:
    named (any of its words in the clause), else wrong, else declined."""
    found: dict[str, tuple[str, str, Mention]] = {}
    for clause in _clauses(text):
        lowered = normalised(clause)
        # Most clauses name no area: the listing's reading is only done for one that does
        # (a greeter's closing reads every earlier message of the chat again).
        if not _ANY_AREA.search(lowered):
            continue
        starts = {area: [hit.start() for hit in p.finditer(lowered)] for area, p in _PATTERNS}
        parts, bare, after = parts_of(clause), listed_bare(lowered), listed_after(lowered)
        for area, at in starts.items():
            said = {said_of(lowered, start, bare, after) for start in at}
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
    return not around(first)[1] and all(around(piece) == ([], []) for piece in rest)
