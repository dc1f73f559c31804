"""Saying goodbye ("bye", "ok bye", "see ya", "до свидания"): the user is leaving, so the list
is done; a farewell is no task of its own."""

# ruff: noqa: RUF003  (Russian text in comments is meant to be Cyrillic)

from __future__ import annotations

# Normalised ("е" for "ё"), as `finishing` reads a part of a line. Each was saved as an inbox
# item ("Saved to your inbox: bye"). Not a lone "пока", which is also "for now" ("пока
# ничего"), nor "say bye to grandma", which names who to say it to.
FAREWELLS = (
    "bye", "goodbye", "good bye", "bye bye", "byebye", "bye now", "cya", "see ya", "see you",
    "see you later", "see ya later", "gotta go", "got to go", "i gotta go",
    "i have to go", "i've got to go", "ttyl", "talk later", "talk to you later", "good night",
    "goodnight", "до свидания", "пока пока", "всего доброго", "всего хорошего",
    "до встречи", "до связи", "увидимся", "мне пора", "я пошел", "я пошла", "бывай", "давай пока",
    "спокойной ночи",
)  # fmt: skip
