"""A list written on one line ("1. молоко 2. маме", "a) milk b) bread", "- молоко - хлеб"): its
entries, for the brain dump and discovery to read each as a line of its own."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

# Where an entry of a one-line list may start: "1. ", "1.milk", "1) ", "(1) ", "a) ", "(a) ",
# "a. " (a letter's dot wants a space: "e.g." is no list).
_MARK = re.compile(
    r"(?<!\S)(?:\((?P<paren>\d{1,2}|[a-zа-я])\)|(?P<num>\d{1,2})[.)](?=\s|[^\W\d_])"
    r"|(?P<letter>[a-zа-я])[.)](?=\s))\s*",
    re.IGNORECASE,
)
# The letters a list counts by ("ё", "й", "ъ", "ы", "ь" are left out of Russian ones).
_ALPHABETS = ("abcdefghijklmnopqrstuvwxyz", "абвгдежзиклмнопрстуфхцчшщэюя")


# A bulleted list on one line: a bullet opening the line, then the same bullet with white
# space on both sides before each further entry ("- молоко - хлеб", "• работа • семья").
_BULLETED = re.compile(r"^\s*([-*•–—·])\s+\S")
_DASHES = frozenset("-–—")


def list_entries(line: str) -> list[str]:
    """A one-line numbered, lettered or bulleted list ("1. молоко 2. маме", "a) milk b) bread",
    "(1) x (2) y", "10. x 11. y", at the line's start or after a heading such as "Дела:"; "-
    молоко - хлеб", "• работа • семья", a bullet opening the line) as its entries; marks count
    on by one from the first, others stay in the text."""
    if bulleted := _bulleted(line):
        return bulleted
    marks: list[re.Match[str]] = []
    for mark in _MARK.finditer(line):
        if not marks:
            head = line[: mark.start()].strip()
            if head and not head.endswith(":"):
                return [line]  # "взять 2) ключи 3) зонт" is no list
            marks.append(mark)
        elif _ordinal(mark) == _next(_ordinal(marks[-1])):
            marks.append(mark)
    if len(marks) < 2:
        return [line]
    ends = [mark.start() for mark in marks[1:]] + [len(line)]
    return [line[mark.end() : end] for mark, end in zip(marks, ends, strict=True)]


def _bulleted(line: str) -> list[str] | None:
    """The entries of a line that opens with a bullet and has the same bullet, spaced, before
    each further entry; None for any other line. "- молоко - хлеб - яйца" was one item, and
    "- работа - здоровье - семья" one fact kept for each of the three areas.

    A spaced dash also says what a thing is ("- работа - мой стартап", a line of a bulleted
    list): a dash parts a line into three entries or more, none with a comma in it, and
    "- молоко - хлеб" stays as written."""
    opening = _BULLETED.match(line)
    if opening is None:
        return None
    bullet = opening.group(1)
    entries = re.split(rf"\s+{re.escape(bullet)}\s+", line[opening.end() - 1 :])
    if not all(entry.strip() for entry in entries):
        return None
    if bullet in _DASHES and (len(entries) < 3 or "," in line):
        return None
    return entries if len(entries) >= 2 else None


def _ordinal(mark: re.Match[str]) -> tuple[str, int]:
    """The kind of a list mark ("(1)" and "1." are not one list) and its place in its count."""
    style = "(" if mark.group("paren") else "."
    value = (mark.group("paren") or mark.group("num") or mark.group("letter")).lower()
    if value.isdigit():
        return style + "1", int(value)
    for alphabet in _ALPHABETS:
        if value in alphabet:
            return style + alphabet[0], alphabet.index(value)
    return style + value, -2  # a letter no list counts by: nothing follows it


def _next(ordinal: tuple[str, int]) -> tuple[str, int]:
    return ordinal[0], ordinal[1] + 1
