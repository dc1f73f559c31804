"""Asking, at any step, to put something in the inbox: "Запиши в inbox: купить молоко", "add
buy milk to my inbox". Elsewhere than in the brain dump the item is kept for it."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.wording import is_negation, words

# Trimmed off an item taken from before its request ("Купить молоко — запиши в inbox").
_SEPARATORS = " ,.!?…:;—–-"

_RU_VERB = r"(?:запиши|добавь|внеси|сохрани|закинь)"
_RU_INBOX = r"(?:в|во)\s+(?:inbox|инбокс\w*|входящ\w*)"
_EN_VERB = r"(?:add|put|write|save|note)"
_EN_INBOX = r"(?:to|in|into|on)\s+(?:my\s+|the\s+)?inbox"
# Where a message may start before an English request in the imperative ("Please add ...").
_EN_START = r"^\W*(?:please\s+|pls\s+)?"
# First the request then the item ("Запиши во входящие: купить хлеб", "add to my inbox: buy
# milk"), then the item inside it ("добавь купить хлеб в inbox", "add buy milk to my inbox").
# Without a colon an English request is an imperative at the message's start, so "I usually
# put everything in my inbox." and "Can you add it to my inbox later?" are none.
_REQUESTS = tuple(
    re.compile(pattern, re.IGNORECASE | re.DOTALL)
    for pattern in (
        rf"\b{_RU_VERB}\s+(?:(?:в|во)\s+)?(?:inbox|инбокс\w*|входящ\w*)\b(?P<item>.*)",
        rf"\b{_EN_VERB}\s+(?:(?:this|it)\s+)?{_EN_INBOX}\s*[:—–-]\s*(?P<item>.+)",
        rf"{_EN_START}{_EN_VERB}\s+{_EN_INBOX}\s+(?P<item>.+)",
        rf"\b{_RU_VERB}\s+(?P<item>.+?)\s+{_RU_INBOX}\s*[.!]*\s*$",
        rf"{_EN_START}{_EN_VERB}\s+(?P<item>.+?)\s+{_EN_INBOX}(?:\s+please)?\s*[.!]*\s*$",
        r"\binbox\s*:(?P<item>.*)",
    )
)
# Where the phrase said just before a request starts: a negation in it refuses the request.
_PHRASES = re.compile(r"[.!?;,:—–]")
_QUOTES = "'\"«»“”„‘’"
# What an item inside a request may not be: it names something said elsewhere, or nothing.
_PRONOUNS = frozenset({
    "it", "this", "that", "these", "those", "them", "everything", "all", "all this", "it all",
    "this one", "это", "все", "все это", "это все", "его", "ее", "их", "то", "вот это",
})  # fmt: skip


def inbox_request(text: str) -> str | None:
    """The item in an off-topic "put this in my inbox" request, or None when it is not one."""
    found = inbox_request_at(text)
    return None if found is None else found[1]


def inbox_request_at(text: str) -> tuple[int, str] | None:
    """Where in `text` a "put this in my inbox" request starts, and its item; None when the
    text makes none. What comes before it is said to the current step."""
    for pattern in _REQUESTS:
        match = pattern.search(text)
        if match is None:
            continue
        if any(is_negation(word) for word in words(_PHRASES.split(text[: match.start()])[-1])):
            return None  # asked not to ("Не записывай в inbox: ...", "Don't put in my inbox")
        item = match.group("item").strip().lstrip(":—–-").strip().strip(_QUOTES).strip()
        if " ".join(words(item)) in _PRONOUNS:
            continue
        if item:
            return match.start(), item
        # Nothing after it: the item came first ("Купить молоко — запиши в inbox"), or none.
        before = text[: match.start()].strip().rstrip(_SEPARATORS).strip()
        return (0, before) if before and " ".join(words(before)) not in _PRONOUNS else None
    return None
