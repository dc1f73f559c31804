"""What a brain dump message asks to remove: the item it names ("удали кроссовки, уже купил"),
the one saved last ("delete the last one") or the one at a place in the list ("remove #3",
"убери третий"), read off the agent's own replies; and whether
taking it out leaves one item fewer."""

from __future__ import annotations

import re

from baton_agent_runner.domain import inbox_requests
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.extracted import same_item, to_remove, without_part
from baton_agent_runner.domain.inbox_positions import place_named
from baton_agent_runner.domain.object_first_removals import verb_first
from baton_agent_runner.domain.scripted_turn import Reply, Turn
from baton_agent_runner.domain.texts import text


def asked(turn: Turn, earlier: list[str]) -> tuple[str | None, Reply | None]:
    """The item the message asks to remove, or the question which one it means: "удали
    кроссовки, уже купил"; of an item said before the history's window too ("удали молоко"
    long after it was said was saved as the item "удали молоко"); "delete the last one",
    "удали последнее" of the item saved last, and "remove #3", "убери третий" of the item at
    that place in the list, asked about when which one that is is not known (naming the
    items it may be)."""
    place = place_named(turn.message)
    if place is None and not inbox_requests.removes_last(turn.message):
        # "стоматолога убери", "стоматолог не нужен": read as "убери стоматолога".
        said = verb_first(turn.message)
        return inbox_requests.removal_request(said, [*earlier, *turn.inbox_open]), None
    if not turn.inbox_open:
        return None, Reply(text(turn.language, "inbox_remove_nothing"))
    listed = _told_saved(turn)
    if place is None:
        if listed:
            return listed[-1], None
        held = "; ".join(turn.inbox_open[-3:])
        return None, Reply(text(turn.language, "inbox_remove_last_which", items=held))
    if not listed:
        held = "; ".join(turn.inbox_open)
        return None, Reply(text(turn.language, "inbox_remove_place_which", place=place, items=held))
    if not 1 <= place <= len(listed):
        held = "; ".join(listed)
        return None, Reply(text(turn.language, "inbox_remove_no_place", place=place, items=held))
    return listed[place - 1], None


def _told_saved(turn: Turn) -> list[str]:
    """The open items (`inbox_open`) in the order the agent's replies told them promoted or
    saved ("I have already added ...: a.", "Saved to your inbox: a; b. Items so far: 2."),
    each at its latest telling: the list the user sees, its last item the one saved last."""
    held = {same_item(content): content for content in turn.inbox_open}
    told: dict[str, str] = {}
    for entry in turn.history:
        if entry.get("role") != "assistant":
            continue
        said = entry.get("text", "")
        found = sorted(
            (hit for told in _TOLD for hit in told.finditer(said)), key=lambda hit: hit.start()
        )
        for item in (item for hit in found for item in hit.group("items").split("; ")):
            if (key := same_item(item)) in held:
                told.pop(key, None)
                told[key] = held[key]
    return list(told.values())


def _told_pattern(code: lang.Lang, key: str) -> re.Pattern[str]:
    """What a reply telling items says in one language (the text `key`: "saved" with its
    count after them, or "promoted"), its items as the group `items`."""
    before, _, after = text(code, key, items="\x00", total="\x01").partition("\x00")
    ending, counted, _ = after.partition("\x01")
    end = f"{re.escape(ending)}\\d" if counted else f"{re.escape(ending)}(?=\\s|$)"
    return re.compile(f"{re.escape(before)}(?P<items>[^\\n]*?){end}")


_TOLD = tuple(_told_pattern(code, key) for code in ("ru", "en") for key in ("saved", "promoted"))


def removes_one(turn: Turn, removal: str) -> bool:
    """Whether taking `removal` out removes a whole item the inbox holds open, as the store
    reads it (`to_remove`, `without_part`): none holding it, several (which one?) or a part of
    one (the rest stays an item) leave as many items as before."""
    found = to_remove(turn.inbox_open, removal)
    return len(found) == 1 and without_part(turn.inbox_open[found[0]], removal) is None
