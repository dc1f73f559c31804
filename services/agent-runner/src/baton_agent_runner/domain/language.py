"""Reading a user's message: its language, the life areas it names (each clause's reading is
`area_clauses`', a self-correction's `self_corrections`'), and confirmation (its words are
`yes_words`)."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

from baton_agent_runner.domain.area_clauses import mentioned
from baton_agent_runner.domain.area_spelling import spelled
from baton_agent_runner.domain.areas import AREAS, CORRECTION, around, named_in
from baton_agent_runner.domain.brain_dump import says_done, unlisted
from baton_agent_runner.domain.fact_filler import HEDGE
from baton_agent_runner.domain.finishing import moves_on
from baton_agent_runner.domain.language_requests import asked_language
from baton_agent_runner.domain.mentions import Mention
from baton_agent_runner.domain.readiness import is_confused
from baton_agent_runner.domain.self_corrections import corrected, said_back, swapped_in
from baton_agent_runner.domain.swaps import as_instead
from baton_agent_runner.domain.translit import is_translit_russian
from baton_agent_runner.domain.wording import has_phrase, normalised, said, words
from baton_agent_runner.domain.yes_words import (
    ALL_GOOD,
    CONFIRM,
    DENY,
    DENY_FIRST,
    STILL_RIGHT,
    YES_EMOJI,
    opens_with_no,
    without_and_da,
    yes_alone,
)

Lang = Literal["ru", "en"]

_CYRILLIC = re.compile(r"[а-яё]", re.IGNORECASE)
_LATIN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?", re.IGNORECASE)
CLEAR_LATIN_WORDS = 3
"""A Latin-only message of fewer words ("ok", "done", "got it") may be either language's."""

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


def language_of(text: str) -> Lang:
    """Russian when the text has Cyrillic letters or Russian in Latin ones, else English."""
    return (
        "ru" if _CYRILLIC.search(text) or is_translit_russian(_LATIN_WORD.findall(text)) else "en"
    )


def clear_language(text: str) -> Lang | None:
    """Russian for Cyrillic letters or Russian written in Latin ones ("privet", "davai"),
    English for several Latin words; None when it could be either ("ok", "done", "👍")."""
    if _CYRILLIC.search(text):
        return "ru"
    latin = _LATIN_WORD.findall(text)
    if is_translit_russian(latin):  # "privet, chto eto?", "ok davai"
        return "ru"
    return "en" if len(latin) >= CLEAR_LATIN_WORDS else None


def language_in(message: str, earlier: Iterable[str]) -> Lang:
    """The language the message asks for, or its own when it is clear; else that of the latest
    of the user's `earlier` messages (oldest first) that asks for one or is clear; else the
    message's own guess."""
    for text in [message, *reversed(list(earlier))]:
        found = asked_language(text) or clear_language(text)
        if found is not None:
            return found
    return language_of(message)


def denies(text: str) -> bool:
    """A "no": "неверно", "wrong", "да нет", a negated confirmation ("не совсем верно", "that's
    not right"), an area said to be wrong ("всё верно, кроме работы"), or a message that
    starts with "нет"/"no"/"not" and does not go on to confirm ("Нет, всё верно", "No, that's
    right" and "nothing wrong" are no denials)."""
    text = HEDGE.sub("", without_and_da(text))  # "not sure, maybe health" is no "no"
    told = ALL_GOOD.sub(",", normalised(text))
    if has_phrase(told, DENY) or said(told, CONFIRM, negated=True) or _wrong_areas(text):
        return True
    tokens = words(told)
    if not tokens or tokens[0] not in DENY_FIRST:
        return False
    all_good = told != normalised(text)
    return not all_good and not said(told, STILL_RIGHT, negated=False)


def confirms(text: str) -> bool:
    """A short confirmation ("да", "верно", "yes", "correct", "nothing wrong"), neither
    negated nor a correction naming an area."""
    text = without_and_da(text)
    if is_confused(text) or denies(text) or areas_in(text):
        return False
    told = normalised(text)
    if YES_EMOJI.match(told) or yes_alone(words(told)):
        return True
    return bool(ALL_GOOD.search(told)) or said(told, CONFIRM, negated=False)


def finishes(text: str) -> bool:
    """ "That's all", "done", "готово", "всё", as the brain dump reads them, naming no area:
    nothing to add or correct ("Всё?", asked, says nothing yet)."""
    # "next step" closes the brain dump, but to discovery it passes on a question.
    done = says_done(text) and not moves_on(text)
    return done and not areas_in(text) and not _wrong_areas(text)


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


@lru_cache(maxsize=16)
def _mentions(text: str) -> tuple[tuple[str, str, Mention], ...]:
    """`_mentions_of` of the text with its mistyped area words read as meant (`spelled`:
    "wrok and helth"), each entry of a list on a line of its own (`unlisted`: "1. Work 2.
    Family"), a swap of areas read as "instead" (`as_instead`: "поменяй работу на учёбу"), the
    named parts without a correction's lead ("replace it with health": "health") when the text
    takes an area back or opens with a "no".

    Kept for the last texts read: one discovery turn asks it of the same message five times
    (`areas_in`, `declined_areas`, `_wrong_areas`, ...), and a message of 8,000 characters of
    self-corrections took 0.4 s of the agent-runner's only core to read five times."""
    text = as_instead(spelled(unlisted(text)))
    found = _mentions_of(text)
    if not any(said == "declined" for *_, said in found) and not opens_with_no(text):
        return tuple(found)
    return tuple(
        (area, swapped_in(part) if said == "named" else part, said) for area, part, said in found
    )


def _mentions_of(text: str) -> list[tuple[str, str, Mention]]:
    """Each area a clause of the text, as the user meant it (`corrected`), names, its part of
    the clause, and what it says of it: named (any of its words in the clause), else wrong,
    else declined."""
    if "?" in text:
        text = _ANSWERED_NO.sub(_no_to_asked, text)
    if CORRECTION.search(normalised(text)):
        for marker in CORRECTION.finditer(normalised(text)):
            if back := said_back(text, marker):
                return _said_back_mentions(text, marker, back)
        text = corrected(text)
    return mentioned(text)


def _said_back_mentions(
    text: str, marker: re.Match[str], back: set[str]
) -> list[tuple[str, str, Mention]]:
    """The mentions of a text whose self-correction names the areas it takes back ("work and
    family. no wait, not family, health"): those before it but the areas taken back (work),
    then those after it, which win ("not family": declined; "не семья, а дети": "дети")."""
    kept = {found[0]: found for found in _mentions(text[: marker.start()]) if found[0] not in back}
    kept.update((found[0], found) for found in _mentions(text[marker.end() :]))
    return list(kept.values())


# An area asked back and answered "no" by the user ("work? not really. family yes", "работа?
# не особо"): declined, as "no work" is. Only a bare area before the "?" ("Hmm, work? no")
# and a "no" alone after it, up to a stop: "work? not really my thing, but family" stays.
# The question is read from where its run of words starts (the lookbehind), not again from
# each character of it: "1 1 1 ... health?" (8,000 characters) took discovery 8 s.
_ANSWERED_NO = re.compile(
    r"(?<![^.,;:!?\n])(?P<asked>[^.,;:!?\n]++)\?+"
    r"\s*(?:not\s+really|not\s+much|not\s+so\s+much|nope|nah|no"
    r"|не\s+особо|не\s+очень|не\s+особенно|не\s+совсем|неа|нет)(?=\s*(?:[.!;,\n]|$))",
    re.IGNORECASE,
)


def _no_to_asked(found: re.Match[str]) -> str:
    asked = found["asked"]
    if not named_in(asked) or around(asked) != ([], []):
        return found.group()
    lead = asked[: len(asked) - len(asked.lstrip())]
    return f"{lead}no {asked.strip()}"
