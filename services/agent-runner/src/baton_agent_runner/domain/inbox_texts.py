"""What the scripted brain dump says, in Russian and English, beside `texts` (which holds the
rest, and is merged with these)."""

from __future__ import annotations

INBOX_TEXTS: dict[str, dict[str, str]] = {
    # To "can I add things later?" (`adding_later`): it got the generic explanation.
    "inbox_add_later": {
        "ru": "Да, добавлять в inbox можно и потом, в любой момент: просто напиши мне.",
        "en": "Yes, you can add to your inbox later, at any time: just write to me.",
    },
}
