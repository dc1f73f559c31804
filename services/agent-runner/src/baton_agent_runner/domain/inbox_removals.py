"""What a brain dump message asks to remove: the item it names ("удали кроссовки, уже купил"),
the one saved last ("delete the last one") or the one at a place in the list ("remove #3",
"убери третий"), read off the agent's own replies; and whether
taking it out leaves one item fewer."""

from __future__ import annotations

import re

from baton_agent_runner.domain import inbox_requests
from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.extracted import same_item, to_remove, without_part
from baton_agent_runner.domain.forgetting import says_forget
from baton_agent_runner.domain.inbox_positions import place_named
from baton_agent_runner.domain.object_first_removals import verb_first
from baton_agent_runner.domain.scripted_turn import Reply, Turn, last_reply
from baton_agent_runner.domain.texts import text


def asked(turn: Turn, earlier: list[str]) -> tuple[str | None, Reply | None]:
    """The item the message asks to remove, or the question which one it means: "удали
    кроссовки, уже купил"; of an item said before the history's window too ("удали молоко"
    long after it was said was saved as the item "удали молоко"); "delete the last one",
    "удали последнее" of the item saved last, and "remove #3", "убери третий" of the item at
    that place in the list, asked about when which one that is is not known (naming the
    items it may be)."""
    place = place_named(turn.message)
    if place is None and not (inbox_requests.removes_last(turn.message) or forgets_last(turn)):
        # "стоматолога убери", "стоматолог не нужен": read as "убери стоматолога".
        said = verb_first(turn.message)
        return inbox_requests.removal_request(said, [*earlier, *turn.inbox_open]), None
    if not turn.inbox_open:
        return None, Reply(text(turn.language, "inbox_remove_nothing"))
    listed = told_saved(turn)
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


def forgets_last(turn: Turn) -> bool:
    """ "забудь" alone right after the agent's reply said items were saved: the one saved last
    is taken back (`forgetting`)."""
    return says_forget(turn.message) and any(told.search(last_reply(turn)) for told in _TOLD)


def told_saved(turn: Turn) -> list[str]:
    """The open items (`inbox_open`) in the order the agent's replies told them promoted or
    saved ("I have already added ...: a.", "Saved to your inbox: a; b. Items so far: 2."),
    each at its latest telling, and a changed one in the place of the item it changed
    ("Changed: buy milk → buy oat milk."): the list the user sees, its last item the one saved
    last, one removed already left out."""
    told: list[str] = []  # each item's `same_item`, as told
    for entry in turn.history:
        if entry.get("role") != "assistant":
            continue
        said = entry.get("text", "")
        found = sorted(
            (hit for told in (*_TOLD, *_CHANGED) for hit in told.finditer(said)),
            key=lambda hit: hit.start(),
        )
        for hit in found:
            if "new" in hit.re.groupindex:  # "#3" after it counted the changed item out
                told = _changed(told, same_item(hit.group("item")), same_item(hit.group("new")))
                continue
            for key in map(same_item, hit.group("items").split("; ")):
                told = [*(k for k in told if k != key), key]
    held = {same_item(content): content for content in turn.inbox_open}
    return [held[key] for key in told if key in held]


def _changed(told: list[str], old: str, new: str) -> list[str]:
    """`told` with `new` in the place of `old`, or last when `old` was never told."""
    told = [key for key in told if key != new]
    return [new if key == old else key for key in told] if old in told else [*told, new]


def _told_pattern(code: lang.Lang, key: str) -> re.Pattern[str]:
    """What a reply telling items says in one language (the text `key`: "saved" with its
    count after them, or "promoted"), its items as the group `items`."""
    before, _, after = text(code, key, items="\x00", total="\x01").partition("\x00")
    ending, counted, _ = after.partition("\x01")
    end = f"{re.escape(ending)}\\d" if counted else f"{re.escape(ending)}(?=\\s|$)"
    return re.compile(f"{re.escape(before)}(?P<items>[^\\n]*?){end}")


_TOLD = tuple(_told_pattern(code, key) for code in ("ru", "en") for key in ("saved", "promoted"))


def _changed_pattern(code: lang.Lang) -> re.Pattern[str]:
    """What a reply telling a correction says ("Changed: {item} → {new}."), its old item as
    the group `item` and the new one as `new`."""
    said = re.escape(text(code, "inbox_changed", item="\x00", new="\x01"))
    said = said.replace(re.escape("\x00"), r"(?P<item>[^\n]*?)")
    said = said.replace(re.escape("\x01"), r"(?P<new>[^\n]*?)")
    return re.compile(said.removesuffix(re.escape(".")) + r"\.(?=\s|$)")


_CHANGED = tuple(_changed_pattern(code) for code in ("ru", "en"))


def removes_one(turn: Turn, removal: str) -> bool:
    """Whether taking `removal` out removes a whole item the inbox holds open, as the store
    reads it (`to_remove`, `without_part`): none holding it, several (which one?) or a part of
    one (the rest stays an item) leave as many items as before."""
    found = to_remove(turn.inbox_open, removal)
    return len(found) == 1 and without_part(turn.inbox_open[found[0]], removal) is None
