"""What the scripted greeter says, in Russian and English, beside `texts` (which holds the
rest, and is merged with these)."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

GREETER_TEXTS: dict[str, dict[str, str]] = {
    # To "can I skip this?" once introduced: it asks what may be skipped, and was taken for
    # readiness, the greeting closed unanswered.
    "greeter_skip_asked": {
        "ru": "Знакомство — да, оно почти закончено. А следующие два шага, приоритеты и "
        "выгрузка мыслей, настраивают Baton под тебя: на них уйдёт пара минут. Начнём?",
        "en": "The introduction, yes: it is nearly done. The next two steps, your priorities "
        "and the brain dump, set Baton up for you, and take a couple of minutes. Ready to "
        "start?",
    },
}
