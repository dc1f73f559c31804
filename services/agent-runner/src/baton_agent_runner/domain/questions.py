"""A question in a line of a brain dump: where its sentence starts, and whether it is a short
one asking whether that is all, for the brain dump to read the rest of the line around it."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from collections.abc import Iterator

from baton_agent_runner.domain.wording import words

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


def questions(line: str) -> Iterator[str]:
    """The questions a line asks, each its own sentence without its "?" ("купить хлеб. А что
    будет с этим?" asks "А что будет с этим")."""
    for end in _QUESTION_END.finditer(line):
        yield line[sentence_start(line, end.start()) : end.start()]


def sentence_start(text: str, end: int) -> int:
    """Where the sentence that ends at `end` starts: past the last stop before it."""
    start = 0
    for stop in _SENTENCE_END.finditer(text, 0, end):
        start = stop.end()
    return start


def short_about_finishing(question: str) -> bool:
    """A question of a few words with one of finishing ("Is that all", "Are we done")."""
    tokens = words(question)
    return len(tokens) <= _SHORT_QUESTION and not _FINISHED.isdisjoint(tokens)
