"""A removal that names an item by its place in the brain dump's list ("remove #3", "delete
number 2", "убери третий", "удали 2"): the place it names."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.inbox_requests import FROM_THE_LIST, REMOVING

_ENGLISH_ORDINALS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
)  # fmt: skip
# The stems of "первый" ... "десятый", each before its ending in any gender or case said of
# an item ("третий", "третье", "третью", "второй пункт", "пятую запись").
_RUSSIAN_STEMS = (
    "перв", "втор", "трет", "четв[её]рт", "пят", "шест", "седьм", "восьм", "девят", "десят",
)  # fmt: skip
_RUSSIAN_ENDING = r"(?:ый|ой|ий|ая|ья|ое|ье|ую|ью)"
_ITEM_WORD = r"(?:one|item|entry|thing|task|пункт|запись|дело|задачу|элемент)"
_PLACE = re.compile(
    REMOVING + rf"(?:(?:the\s+)?(?:{_ITEM_WORD}\s+)?(?:#|№|number\s+|no\.\s*|номер\s+|пункт\s+)?"
    r"(?P<n>\d{1,2})(?:-?(?:й|ю|е|ое|ий|ую|st|nd|rd|th))?"
    rf"|(?:the\s+)?(?P<en>{'|'.join(_ENGLISH_ORDINALS)})"
    rf"|(?P<ru>(?:{'|'.join(_RUSSIAN_STEMS)}){_RUSSIAN_ENDING}))(?:\s+{_ITEM_WORD})?"
    + FROM_THE_LIST,
    re.IGNORECASE,
)


def place_named(text: str) -> int | None:
    """The place in the list (1 the first) of the item a message asks to remove by it
    ("remove #3", "delete number 2", "drop the second one", "убери третий", "удали 2"); None
    when it names no place ("remove 2 apples" names an item)."""
    found = _PLACE.match(text.rstrip(" \t\n.!"))
    if found is None:
        return None
    if found.group("n"):
        return int(found.group("n"))
    if english := found.group("en"):
        return _ENGLISH_ORDINALS.index(english.casefold()) + 1
    said = found.group("ru").casefold()
    return next(at + 1 for at, stem in enumerate(_RUSSIAN_STEMS) if re.match(stem, said))
