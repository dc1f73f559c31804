"""Words that close a brain dump's list without naming anything: thanks ("..., thanks!",
"..., спасибо") and an "etc" tail ("..., etc.", "... и т.д."). They are no item of their own,
and no part of the last one."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

_ETC = (
    r"(?:etc\b\.?|etcetera|et\s+cetera|and\s+so\s+(?:on|forth)|and\s+(?:more|stuff|such|the\s+like|whatnot)"
    r"|и\s+т\.?\s*[дп]\b\.?|и\s+так\s+далее|и\s+прочее|и\s+вс[её]\s+такое)"
)
# Thanks close a list only after a comma or a dash: "send grandma a thank you" is an item.
# Said to someone ("Thank you very much, young man."), it was saved as an item.
_THANKS = (
    r"(?:(?:many\s+|большое\s+|заранее\s+)?(?:thanks|thank\s+you|thx|спасибо|спс|благодарю)"
    r"(?:\s+(?:a\s+lot|so\s+much|very\s+much|again|in\s+advance|большое|заранее))?"
    r"(?:,?\s+(?:young\s+man|my\s+friend|my\s+dear|dear|buddy|mate|man|bro|pal|друг|дружище"
    r"|дорогой|дорогая|молодой\s+человек))?)"
)
_THANKS_ALONE = re.compile(rf"\A\W*{_THANKS}\W*\Z", re.IGNORECASE)
# A tail is tried only where a run of spaces and commas starts (`(?<![\s,])`): tried from each
# of a long run, a message of 8,000 commas would be read 8,000 times over.
_CLOSING = re.compile(
    rf"(?<![\s,])(?:\s*[,—–-]\s*(?:{_ETC}|{_THANKS})|[\s,]+{_ETC})\W*$", re.IGNORECASE
)
# Alone, an "etc" may have lost its "and"/"и" as a joining word ("и т.д." is read as "т.д").
# Anchored: searched from each of 8,000 commas, "\W*" would read the rest from each (13 s).
_CLOSING_ALONE = re.compile(
    rf"\A\W*(?:{_ETC}|{_THANKS}|т\.?\s*[дп]\b\.?|так\s+далее|прочее|so\s+(?:on|forth))\W*\Z",
    re.IGNORECASE,
)
# Thanks after a space alone ("pay bills thank you") end the item too, after two words or
# more, the last no word that makes the thanks an object ("send grandma a thank you", "say
# thanks", "сказать спасибо"); it was saved as "pay bills thank you".
_BARE_THANKS = re.compile(rf"(?P<before>[\w']+)\s+(?:{_THANKS})\W*$", re.IGNORECASE)
_THANKS_AS_OBJECT = frozenset({
    "a", "an", "the", "my", "our", "your", "his", "her", "their", "big", "say", "said", "says",
    "saying", "send", "sent", "write", "wrote", "give", "gave", "express", "no", "any", "и", "за",
    "без", "большое", "огромное",
})  # fmt: skip
_TAIL = 80
# "..., etc, thanks!": a few tails in a row; more than this is no list's end.
_MOST_TAILS = 3


def without_closing(item: str) -> str:
    """The item without the thanks and "etc" that end it ("pay rent, call mom, etc" is "pay
    rent, call mom"); as it is when none do."""
    for _ in range(_MOST_TAILS):
        shorter = _CLOSING.sub("", item, count=1)
        if shorter == item:
            break
        item = shorter
    return _without_bare_thanks(item)


def _without_bare_thanks(item: str) -> str:
    """The item without thanks after a space that end it (`_BARE_THANKS`)."""
    # Only the item's end is searched: from each letter of a long word, "[\w']+" read the rest.
    start = max(0, len(item) - _TAIL)
    found = _BARE_THANKS.search(item, start)
    if found is None or found.start() == start > 0 or len(item[: found.end("before")].split()) < 2:
        return item
    before = found.group("before").lower()
    if before in _THANKS_AS_OBJECT or (before.endswith("ть") and len(before) > 3):
        return item  # "сказать спасибо", "передать спасибо"
    return item[: found.end("before")]


def only_thanks(text: str) -> bool:
    """The text is thanks alone ("thx", "Thank you very much, young man.", "спасибо большое")."""
    return _THANKS_ALONE.fullmatch(text) is not None


def only_closing(item: str) -> bool:
    """The item is thanks or an "etc" alone ("etc.", "и т.д."): no item."""
    return _CLOSING_ALONE.fullmatch(item) is not None


# "ok thanks", "ладно, спасибо": an "ok" before the thanks says no more than the thanks do.
_OK_THANKS = re.compile(
    rf"\A\W*(?:ok(?:ay)?|k|ок(?:ей)?|ладно|хорошо|понятно|got\s+it)[\s,.!]+{_THANKS}\W*\Z",
    re.IGNORECASE,
)


def ok_and_thanks(text: str) -> bool:
    """The text is an "ok" and thanks alone ("ok thanks", "okay thank you", "ок спасибо")."""
    return _OK_THANKS.fullmatch(text) is not None
