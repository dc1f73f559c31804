"""Taking a removal back in the brain dump ("no wait, don't remove the flights, I need them
after all", "put it back", "верни билеты"): the item the agent's reply said it removed goes
back into the inbox, instead of the request being saved as an item."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.interjections import is_interjection
from baton_agent_runner.domain.scripted_turn import Turn
from baton_agent_runner.domain.wording import normalised, words

# Normalised text ("е" for "ё").
_RESTORE = re.compile(
    r"\b(?:(?:don'?t|do\s+not|didn'?t\s+mean\s+to)\s+(?:remove|delete|drop|scratch|cross\s+off)"
    r"|(?:put|bring|add)\s+(?:[\w']+\s+){0,4}?back|undo|restore|unremove|keep\s+(?:[\w']+\s+)"
    r"{0,3}?after\s+all|не\s+(?:удаляй|убирай|удалять|убирать|вычеркивай)|верни(?:те)?\b"
    r"|вернуть|отмени\s+удаление|оставь\s+(?:[\w']+\s+){0,3}?все\s+таки)"
)
# The agent's word of a removal, as `texts` says it ("Removed from your inbox: ...").
_REMOVED = re.compile(r"(?:Removed from your inbox|Убрал из inbox): (?P<item>.+?)\.?$", re.M)
# Words too common to name an item ("the", "it", "them"), and the request's own.
_COMMON = frozenset({
    "the", "a", "an", "it", "them", "that", "this", "one", "those", "these", "my", "no",
    "wait", "don't", "dont", "remove", "delete", "put", "back", "bring", "add", "i", "need",
    "after", "all", "actually", "keep", "please", "oh", "and", "to", "for", "of", "не",
    "удаляй", "убирай", "верни", "вернуть", "это", "его", "ее", "их", "все", "таки", "нет",
    "стоп", "ой", "пожалуйста", "мне", "нужно", "нужны", "нужен", "нужна", "обратно",
    "undo", "restore", "unremove", "last", "removal", "отмени", "удаление", "оставь",
})  # fmt: skip


def restored(turn: Turn) -> str | None:
    """The item the message asks to put back: of those the agent's replies said it removed,
    the one a word of the message names (its first four letters), or the last one when the
    message names none ("undo", "put it back"); None when it asks no such thing."""
    if not _RESTORE.search(normalised(turn.message)):
        return None
    removed = [
        hit["item"]
        for entry in turn.history
        if entry.get("role") == "assistant"
        for hit in _REMOVED.finditer(entry.get("text", ""))
    ]
    if not removed:
        return None
    said = [w for w in words(turn.message) if w not in _COMMON and not is_interjection(w)]
    named = {w[:4] for w in said if len(w) > 2}
    for item in reversed(removed):
        if named & {w[:4] for w in words(item)}:
            return item
    return removed[-1] if not named else None
