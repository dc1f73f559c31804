"""What the scripted discovery agent says, in Russian and English, beside `texts` (which
holds the rest, and is merged with these)."""

from __future__ import annotations

DISCOVERY_TEXTS: dict[str, dict[str, str]] = {
    # Before the summary again, to an area it holds said again ("work i said", "growth means
    # uni"): it got "I did not quite get that", though nothing was wrong.
    "discovery_unchanged": {
        "ru": "Это уже есть в итоге, ничего не меняю.",
        "en": "That is in the summary already; nothing to change.",
    },
    # Before a follow-up question asked again, to a bare "sure" (and its Russian ones): it
    # was taken as a pass, and the question went unanswered.
    "discovery_say_more": {
        "ru": "Хватит пары слов (или напиши «пропустим»).",
        "en": 'A word or two will do (or say "skip").',
    },
}
