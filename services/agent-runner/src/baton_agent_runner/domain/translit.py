"""Russian written in Latin letters ("privet", "davai", "rabota, zdorovie, semya"): the words
that tell such a message is Russian, for the reply's language. A user without a Cyrillic
keyboard was answered in English, and their areas went unheard."""

from __future__ import annotations

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
