"""Russian written in Latin letters ("privet", "davai", "rabota, zdorovie, semya"): the words
that tell such a message is Russian, for the reply's language. A user without a Cyrillic
keyboard was answered in English, and their areas went unheard. And a Latin "i" typed between
Russian words, read as the "и" meant."""

# ruff: noqa: RUF001  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

TRANSLIT_RU = frozenset({
    "privet", "privetik", "zdravstvuyte", "zdravstvuite", "davai", "davay", "davaj", "poehali",
    "poekhali", "pognali", "gotov", "gotova", "ponyal", "ponyala", "ponjal", "ponyatno",
    "spasibo", "horosho", "khorosho", "ladno", "chto", "shto", "eto", "zachem", "pochemu",
    "rabota", "rabotu", "raboty", "zdorovie", "zdorove", "zdorovye", "zdorovje", "semya",
    "semia", "semja", "otnosheniya", "razvitie", "ucheba", "uchyoba", "hobbi", "khobbi",
    "nichego", "nado", "kupit", "pozvonit", "zapishi", "vsyo", "konechno", "normalno",
})  # fmt: skip
"""Words only Russian written in Latin letters uses (not "da", "net", "ty": English has them)."""


def is_translit_russian(latin_words: list[str]) -> bool:
    """Whether a message in Latin letters has a word of Russian written so."""
    return any(word.lower() in TRANSLIT_RU for word in latin_words)


# A Latin "i" alone between Russian words: the keyboard left on English for one letter
# ("работа i здоровье", "купить хлеб, i молоко"), where "и" was meant. Not a capital "I": a
# Roman numeral after a name ("Пётр I сказал") is one.
_LATIN_I = re.compile(r"(?<=[а-яёА-ЯЁ])((?:[^\S\n]*+,)?[^\S\n]++)i(?=[^\S\n]+[а-яёА-ЯЁ])")


def with_russian_i(text: str) -> str:
    """`text` with each Latin "i" alone between Russian words read as the "и" meant (`_LATIN_I`:
    "работа i здоровье" was one fact for both areas, and "хлеб i молоко" one item); the text
    itself when it has none."""
    if "i" not in text:
        return text
    return _LATIN_I.sub(r"\1и", text)
