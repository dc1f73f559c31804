"""A removal said object first ("стоматолога убери", "про стоматолога забудь", "стоматолог не
нужен"), put verb first, as `inbox_requests.removal_request` reads it ("убери стоматолога")."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

# A second thought before it ("хотя нет, ..."), kept in front: `REMOVING` reads it there.
_OPENER = r"(?P<opener>\W*(?:(?:хотя|нет|ой|стоп|погоди|подожди|слушай)\b[\s,.!—–-]*)*)"
# What names the item: a few words, no verb of removing among them.
_NAMED = r"(?P<item>(?:[^\W\d_][\w-]*\s+){0,3}?[^\W\d_][\w-]*)"
_REST = r"(?P<rest>\s*(?:[,.;!?…].*)?)$"
_VERB_LAST = re.compile(
    rf"^{_OPENER}{_NAMED}\s+(?P<verb>(?:убери|удали|вычеркни|сотри|забудь)(?:те)?){_REST}",
    re.IGNORECASE | re.DOTALL,
)
# A verb said with "не" before it asks to keep, not to remove ("не забудь!", "смотри не
# удали"): its "не" was read as the item.
_NEGATION = re.compile(r"(?:^|\s)(?:не|ни)$", re.IGNORECASE)
# "стоматолог не нужен", "молоко уже не надо", "это больше не нужно": no longer needed.
_NOT_NEEDED = re.compile(
    rf"^{_OPENER}{_NAMED}\s+(?:(?:уже|больше)\s+)?не\s+(?:нужен|нужна|нужно|нужны|надо){_REST}",
    re.IGNORECASE | re.DOTALL,
)


def verb_first(text: str) -> str:
    """The message with its verb of removing before what it names ("стоматолога убери":
    "убери стоматолога", "стоматолог не нужен": "убери стоматолог"); as it is otherwise.
    Whether it names an item said before is still `removal_request`'s to read: "пыль сотри",
    naming none, stays a task."""
    if (found := _VERB_LAST.match(text)) and not _NEGATION.search(found["item"]):
        verb = found["verb"]
    elif found := _NOT_NEEDED.match(text):
        verb = "убери"
    else:
        return text
    return f"{found['opener']}{verb} {found['item']}{found['rest']}"
