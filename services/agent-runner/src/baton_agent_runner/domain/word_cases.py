"""Russian words in another case: a change or a removal names the word as the sentence needs
it ("замени колбасу на сыр", "удали колбасу"), the item holds it as it was said ("колбаса").
A word's stem and any case ending of one or two letters find it; the stem is three letters
or more, so that short different words ("сок", "сон") are not taken for each other."""

# ruff: noqa: RUF001, RUF002  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

# Russian case endings of a noun or an adjective, of one or two letters, the longer first.
_ENDINGS = (
    "ом", "ем", "ём", "ой", "ей", "ою", "ею", "ам", "ям", "ах", "ях", "ов", "ев", "ью", "ый",
    "ий", "ая", "яя", "ое", "ее", "ую", "юю", "ые", "ие", "ым", "им", "ых", "их", "а", "я", "о",
    "е", "ё", "у", "ю", "ы", "и", "ь", "й",
)  # fmt: skip
_ENDING = "(?:" + "|".join(_ENDINGS) + ")?"
# A stem shorter than this is no stem: "сок" and "сон", "кот" and "код" are different words.
_STEM = 3
_CYRILLIC = re.compile(r"[а-яё]+", re.IGNORECASE)


def inflected(old: str) -> re.Pattern[str] | None:
    """The words of `old` in any case: each Russian word its stem (the word without a case
    ending, `_ENDINGS`, of three letters or more) and any ending, another word as it is; None
    when `old` has no Russian word. "колбасу" finds "колбаса", "молока" "молоко"; "сок" is
    no stem of "сон"."""
    said = old.split()
    if not any(_CYRILLIC.fullmatch(word) for word in said):
        return None
    return re.compile(r"(?<!\w)" + r"\s+".join(map(_any_case, said)) + r"(?!\w)", re.IGNORECASE)


def _any_case(word: str) -> str:
    """A pattern of the word in any case (`inflected`), "е" and "ё" alike."""
    if not _CYRILLIC.fullmatch(word):
        return re.escape(word)
    lowered = word.lower()
    ending = next(
        (end for end in _ENDINGS if lowered.endswith(end) and len(lowered) - len(end) >= _STEM),
        "",
    )
    stem = lowered[: len(lowered) - len(ending)]
    return re.sub("[её]", "[её]", stem) + _ENDING
