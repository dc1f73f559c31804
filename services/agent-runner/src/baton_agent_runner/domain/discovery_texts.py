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
}
