"""What a brain dump message asks to remove: the item it names ("удали кроссовки, уже купил"),
or the one saved last ("delete the last one"), read off the agent's own replies; and whether
taking it out leaves one item fewer."""

from __future__ import annotations

import re

from baton_agent_runner.domain import inbox_requests
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.extracted import same_item, to_remove, without_part
from baton_agent_runner.domain.scripted_turn import Reply, Turn
from baton_agent_runner.domain.texts import text


def asked(turn: Turn, earlier: list[str]) -> tuple[str | None, Reply | None]:
    """The item the message asks to remove, or the question which one it means: "удали
    кроссовки, уже купил"; of an item said before the history's window too ("удали молоко"
    long after it was said was saved as the item "удали молоко"); "delete the last one",
    "удали последнее" of the item saved last, asked about when which one that is is not known
    (naming the last few)."""
    if not inbox_requests.removes_last(turn.message):
        return inbox_requests.removal_request(turn.message, [*earlier, *turn.inbox_open]), None
    removal = _saved_last(turn)
    if removal is not None:
        return removal, None
    if not turn.inbox_open:
        return None, Reply(text(turn.language, "inbox_remove_nothing"))
    held = "; ".join(turn.inbox_open[-3:])
    return None, Reply(text(turn.language, "inbox_remove_last_which", items=held))


def _saved_last(turn: Turn) -> str | None:
    """The open item saved last, as the agent's replies told it ("Saved to your inbox: a; b.
    Items so far: 2."): the latest one still open (`inbox_open`), None when none is told."""
    held = {same_item(content): content for content in turn.inbox_open}
    for entry in reversed(turn.history):
        if entry.get("role") != "assistant":
            continue
        said = entry.get("text", "")
        for told in reversed([found for saved in _SAVED for found in saved.finditer(said)]):
            for item in reversed(told.group("items").split("; ")):
                if same_item(item) in held:
                    return held[same_item(item)]
    return None


def _saved_pattern(code: lang.Lang) -> re.Pattern[str]:
    """What the "saved" reply says in one language, its items as the group `items`."""
    before, _, after = text(code, "saved", items="\x00", total="\x01").partition("\x00")
    ending = after.partition("\x01")[0]
    return re.compile(f"{re.escape(before)}(?P<items>[^\\n]*?){re.escape(ending)}\\d")


_SAVED = (_saved_pattern("ru"), _saved_pattern("en"))


def removes_one(turn: Turn, removal: str) -> bool:
    """Whether taking `removal` out removes a whole item the inbox holds open, as the store
    reads it (`to_remove`, `without_part`): none holding it, several (which one?) or a part of
    one (the rest stays an item) leave as many items as before."""
    found = to_remove(turn.inbox_open, removal)
    return len(found) == 1 and without_part(turn.inbox_open[found[0]], removal) is None
