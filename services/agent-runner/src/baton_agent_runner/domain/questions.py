"""A question in a line of a brain dump: where it starts, and whether it is a short one asking
whether that is all, for the brain dump to read the rest of the line around it."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Iterator

from baton_agent_runner.domain.wording import normalised, words

# A question mark that ends a sentence: at the line's end or before a space ("что будет с
# ними? позвонить маме"), not inside a word or a quote.
_QUESTION_END = re.compile(r"[.!…]*\?[?!.…]*(?=\s|$)")
# A sentence ends at a stop before a space, not inside a number ("1.5 литра"), and a lone
# capital's dot is an initial's, even after a capitalised word: "Позвонить В. Петрову?" is one
# question, not an item "Позвонить В." and a question "Петрову?".
_SENTENCE_END = re.compile(r"(?:(?<!\b[A-ZА-ЯЁ])\.|[!?…])[.!?…]*\s+")
# A short question with one of these asks whether that is all ("Is that all?", "Это всё, что
# нужно?", "Are we done?"): the agent says how to finish, not what becomes of the items.
_FINISHED = frozenset({
    "все", "готово", "закончили", "хватит", "достаточно", "all", "done", "finished",
    "everything", "enough",
})  # fmt: skip
_SHORT_QUESTION = 4
# A clause after a comma asks about the items, and what comes before the comma is still items
# ("купить хлеб, а что будет с этим?", "call mom, then what?"), when a question word opens it
# after "а", "и", "and", "so", "потом" or "then" ("а что", "и как", "and how", "then what");
# when it is "а потом?", "and then?"; or, in English only, when a bare question word opens it
# and it says "next" or names the items ("what next", "what happens to it"). The lists are
# closed and short on purpose: the "?" may be the item's own ("купить хлеб, молоко?",
# "позвонить маме, может быть?", "call mom, then?"). A bare Russian question word opens a
# clause of the item as often as a question: Russian writes that clause after a comma
# ("решить, что с этим делать", "узнать, как продлить визу"), English does not. Left out:
# "когда", "when" ("позвонить, когда приеду?"), "так как" ("because"), "но", "but" (a doubt
# about the item: "позвонить маме, но как?"), "и как можно скорее" ("as soon as possible"),
# and "что-то", "как-нибудь" (no question words).
_ASKING_BARE = frozenset({"what", "how", "where", "why"})
_THE_ITEMS = frozenset({"it", "this", "these", "them", "they", "those"})
_JOINING = frozenset({"а", "и", "and", "so"})
_THEN = frozenset({"потом", "дальше", "затем", "then", "next", "now"})
_ASKING = frozenset({"что", "как", "куда", "зачем", "где", "почему", *_ASKING_BARE})
_COMMA = re.compile(r",\s*")
_CLAUSE_WORD = re.compile(r"\w[\w'-]*")  # "что-то" is one word, and no question word


def questions(line: str) -> Iterator[str]:
    """The questions a line asks, each its own sentence without its "?" ("купить хлеб. А что
    будет с этим?" asks "А что будет с этим")."""
    for end in _QUESTION_END.finditer(line):
        yield line[question_start(line, end.start()) : end.start()]


def question_start(text: str, end: int) -> int:
    """Where the question that ends at `end` starts: its sentence's start, or past a comma
    before a clause asking about the items ("купить хлеб, а что будет с этим?")."""
    start = sentence_start(text, end)
    opening = _past_joining(_clause_words(text[start:end]))
    if opening and opening[0] in _ASKING:
        return start  # asked from its first word, it is one question ("как быть, а что потом?")
    for comma in _COMMA.finditer(text, start, end):
        if _asks_about_items(_clause_words(text[comma.end() : end])):
            return comma.end()
    return start


def sentence_start(text: str, end: int) -> int:
    """Where the sentence that ends at `end` starts: past the last stop before it."""
    start = 0
    for stop in _SENTENCE_END.finditer(text, 0, end):
        start = stop.end()
    return start


def _asks_about_items(tokens: list[str]) -> bool:
    """The clause after a comma asks about the items (the comment on `_ASKING_BARE` says
    when)."""
    rest = _past_joining(tokens)
    if not rest:  # "а потом?", "and then?"; not a bare "then?"
        return bool(tokens) and tokens[0] in _JOINING and not _THEN.isdisjoint(tokens)
    if len(rest) < len(tokens):  # not "и как можно скорее" ("as soon as possible")
        return rest[0] in _ASKING and rest[:2] != ["как", "можно"]
    return rest[0] in _ASKING_BARE and not (_THE_ITEMS | _THEN).isdisjoint(rest)


def _clause_words(text: str) -> list[str]:
    """The words of `text`, normalised, "что-то" one of them."""
    return _CLAUSE_WORD.findall(normalised(text))


def _past_joining(tokens: list[str]) -> list[str]:
    """The words past the joining ones that open a clause ("а", "and", "then")."""
    at = 0
    while at < len(tokens) and tokens[at] in _JOINING | _THEN:
        at += 1
    return tokens[at:]


def short_about_finishing(question: str) -> bool:
    """A question of a few words with one of finishing ("Is that all", "Are we done")."""
    tokens = words(question)
    return len(tokens) <= _SHORT_QUESTION and not _FINISHED.isdisjoint(tokens)
