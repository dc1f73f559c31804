"""A second thought in the brain dump about an item already saved: a correction ("no wait not
milk, oat milk", "не, не молоко, а кефир", "no wait the gift is for Jack not Jake") changes the
item, and "already done" ("ой нет, подарок уже купила", "no wait cancel #2 i already did it")
takes it out. Neither message is an item itself.

The rule is kept simple and predictable: a correction replaces the word(s) named after "not"
("не") with what follows ("not milk, oat milk", "не молоко, а кефир") or, said the other way
round ("for Jack not Jake"), with as many words said before the "not", in the most recent item
holding them. Said as a change ("change milk to bread", "замени молоко на хлеб"), the words
named first are replaced by the others in the most recent item holding them; said with only
the new words ("I meant bread", "actually make that bread", "я имел в виду хлеб"), they take
the place of what follows the verb of the one item of the last list it can be (`_meant`), and
when that is no one item the user is asked which. "already done" names the item by a word of
it ("подарок") or by its place in the last list the user sent ("#2"), and when that is no one
item the user is asked which."""

# ruff: noqa: RUF001, RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re
from typing import NamedTuple

from baton_agent_runner.domain.brain_dump import dumped_items
from baton_agent_runner.domain.change_phrases import CHANGES, change_said
from baton_agent_runner.domain.extracted import holds, same_item
from baton_agent_runner.domain.owner_corrections import without_owner
from baton_agent_runner.domain.word_cases import inflected
from baton_agent_runner.domain.wording import words

# The second thought that opens it ("no wait", "oh", "ой нет", "не,"): a bare "не"/"not" opens
# the correction itself ("не молоко, а кефир"), so it is one only before a comma or a stop.
_OPENER = re.compile(
    r"^\W*(?:(?:no|nope|wait|oh|oops|actually|sorry|hmm|ой|нет|стоп|погоди|подожди|хотя|блин)"
    r"\b[\s,.!—–-]*|не\s*[,.!—–-]+\s*)+",
    re.IGNORECASE,
)
# "not milk, oat milk", "не молоко, а кефир", "not milk but oat milk".
_NOT_THEN = re.compile(
    r"^(?:not|не)\s+(?P<old>[^,;]+?)\s*(?:[,;—–]\s*|\s+(?=but\b|а\b))"
    r"(?:but\s+|а\s+|i\s+meant\s+|it'?s\s+)?(?P<new>[^,;]+?)[\s.!]*$",
    re.IGNORECASE,
)
# Only the new words: "I meant bread", "make that bread", "я имел в виду хлеб". "I mean, ..."
# and "I mean to ..." go on talking, no correction; nor does "make that" before what one
# makes ("make that call to the bank", "make that appointment": a task, it changed "buy milk"
# into "buy call to the bank").
_MADE = r"(?:(?:phone\s+)?calls?|appointments?|payments?|reservations?|bookings?|decisions?|trips?)"
_MEANT = re.compile(
    r"^(?:i\s+meant|i\s+mean(?![\s,]*(?:to|it|that|,)\b)"
    rf"|make\s+that(?!\s+{_MADE}\b)(?:\s+into)?"
    r"|change\s+(?:that|it)\s+(?:to|into)|(?:я\s+)?имел[аи]?\s+в\s+виду"
    r"|(?:я\s+)?хотел[аи]?\s+сказать)\b[\s,:—–-]*(?=\w)",
    re.IGNORECASE,
)
# The new words of "I meant bread" are a few: a longer message is talk, or an item.
_MEANT_WORDS = 4
# Words before an item's object that go with it ("call the bank": "the bakery").
_ARTICLES = frozenset({"the", "a", "an", "my", "our", "his", "her", "their"})
# "the gift is for Jack not Jake", "для Джека, а не для Джейка" is left to a person.
_THEN_NOT = re.compile(r"^(?P<new>.+?)[\s,]+not\s+(?P<old>[^,;]+?)[\s.!]*$", re.IGNORECASE)
_DONE = re.compile(
    r"\balready\s+(?:did|done|got|bought|paid|called|booked|sent|fixed|handled|finished|have"
    r"|took|made)\b(?:\s+(?:it|that|this))?|\b(?:did|done)\s+(?:it|that)\s+already\b"
    r"|\bуже\s+(?:не\s+надо|не\s+нужно|\w+(?:л|ла|ли|но|ны|ено|ано))(?!\w)",
    re.IGNORECASE,
)
_PLACE = re.compile(r"(?:#|№|\bnumber\s+|\bномер\s+|\bпункт\s+)(?P<n>\d{1,2})\b", re.IGNORECASE)
# Words that name no item in "already done" ("cancel #2 i already did it", "я уже купила").
_NAMING_NOTHING = frozenset({
    "i", "it", "that", "this", "the", "a", "cancel", "remove", "delete", "scratch", "one",
    "item", "so", "and", "anyway", "я", "это", "его", "её", "ее", "уже", "и", "а", "так",
    "что", "вот", "number", "номер", "пункт",
})  # fmt: skip


_SHORT = 6
# What "not" may go with in hesitation ("wait, not now, sorry", "no not yet, one sec").
_NOT_AN_ITEM = frozenset({
    "now", "yet", "really", "sure", "today", "quite", "exactly", "that", "this", "it", "so",
    "much", "сейчас", "пока", "еще", "то", "так", "совсем", "очень", "сегодня", "это",
})  # fmt: skip


class Changed(NamedTuple):
    """An item to change (`new` its corrected content) or to take out as done (`new` None)."""

    old: str
    new: str | None


class Unclear(NamedTuple):
    """A second thought that names no one item: `items` are the ones it may mean; `changes`:
    it corrects one (no item holds what it corrects, or `meant`), else it says one is done."""

    said: str
    items: tuple[str, ...]
    changes: bool = False
    meant: bool = False
    """A correction naming only the new words ("I meant bread"): which item they go into is
    not clear (`said` the new words)."""


def second_thought(
    message: str, recent: list[str], last_list: list[str], shown: list[str] | None = None
) -> Changed | Unclear | None:
    """What the message changes of the items `recent` (the open items the user said, the
    most recent first, `recent_items`; `last_list`: the items of the last message that had
    some; `shown`: the list as the replies last showed it, for a "#2", else `last_list`);
    None when it is no correction nor "already done"."""
    opener = _OPENER.match(message)
    opened = opener is not None and opener.end() > 0
    rest = message[opener.end() if opener else 0 :].strip()
    # "Already done" is a second thought when one opens it or it is short: "I already have a
    # dentist appointment, need to move it" is an item.
    if _DONE.search(rest) and (opened or len(words(rest)) <= _SHORT):
        return _done(rest, recent, shown or last_list) if recent else Unclear(rest, ())
    if not recent:
        return None
    return _changed(rest, recent, last_list) or _corrected(rest, recent, opened=opened)


def read(
    message: str, earlier: list[str], open_items: list[str], shown: list[str] | None = None
) -> Changed | Unclear | None:
    """A correction of an item said earlier (`earlier`: the user's messages before this one),
    or "already done" of one, of the open items of the instance; None when it is neither.
    "cancel #2 i already did it" counts `shown` (the open items as the replies last showed
    them, as "remove #2" does: it counted the user's last message alone), and the last list
    sent only when the replies showed none."""
    if not may_be_one(message):
        return None
    # An earlier second thought holds no list: "#2" counts the items of the last list sent.
    said = [dumped_items(text) for text in earlier if not may_be_one(text)]
    recent = recent_items(said, open_items)
    last_list = next((items for items in reversed(said) if items), [])
    return second_thought(message, recent, last_list, shown)


def may_be_one(message: str) -> bool:
    """Whether the message may be a second thought at all, before the chat is read for it."""
    opener = _OPENER.match(message)
    rest = message[opener.end() if opener else 0 :].lstrip()
    starts = rest.casefold().startswith(("not ", "не "))
    said = rest.rstrip()
    changes = any(rule.match(said) for rule in (*CHANGES, _MEANT))
    return bool(opener and opener.end()) or starts or changes or bool(_DONE.search(rest))


def recent_items(said: list[list[str]], open_items: list[str]) -> list[str]:
    """The items of the user's messages (`said`: each message's items, oldest first) the inbox
    holds open, the most recent first, each once; then the open items said in no message (an
    earlier correction's, one kept at discovery), as the inbox gives them."""
    held = {same_item(item): item for item in open_items}
    found: dict[str, str] = {}
    for items in reversed(said):
        for item in reversed(items):
            if (key := same_item(item)) in held and key not in found:
                found[key] = item
    rest = {key: item for key, item in held.items() if key not in found}
    return [*found.values(), *rest.values()]


def _corrected(rest: str, recent: list[str], *, opened: bool) -> Changed | Unclear | None:
    found = _NOT_THEN.match(rest)
    if found is not None:
        old, new = found.group("old"), found.group("new")
    elif opened and (found := _THEN_NOT.match(rest)) is not None:
        old = found.group("old")
        new = " ".join(found.group("new").split()[-len(old.split()) :])
    else:
        return None
    item = _holding(recent, old)
    if item is None:
        # "no wait not bread, rye bread" corrects nothing saved; "wait, not now, sorry" is
        # hesitation, read as such.
        vague = set(words(old)) <= _NOT_AN_ITEM
        return None if vague or not opened else Unclear(old.strip(), tuple(recent), changes=True)
    return Changed(item, _replaced(item, old, new))


def _changed(rest: str, recent: list[str], last_list: list[str]) -> Changed | Unclear | None:
    """A change said as one ("change milk to bread", "замени молоко на хлеб", "keep netflix,
    cancel hulu instead": `change_phrases`) of the most recent item holding its words, or the
    new words alone ("I meant bread"); None when the message is neither, or names words no
    item holds: "replace the filter with a new one" is an item."""
    found = change_said(rest)
    if found is not None:
        old, new = found.group("old"), found.group("new")
        item = _holding(recent, old)
        return None if item is None else Changed(item, _replaced(item, old, new))
    found = _MEANT.match(rest)
    if found is None:
        return None
    said = rest[found.end() :].strip()
    if said.casefold().startswith(("not ", "не ")):  # "я имел в виду не молоко, а хлеб"
        return _corrected(said, recent, opened=True)
    turned = _THEN_NOT.match(said)  # "I meant bread, not milk"
    if turned is not None:
        said = f"not {turned.group('old')}, {turned.group('new')}"
        return _corrected(said, recent, opened=True)
    new = said.rstrip(" .!")
    if not words(new) or len(words(new)) > _MEANT_WORDS or any(mark in new for mark in ",;:"):
        return None
    # The last list's items, the most recent first, as `recent` has them.
    return _meant(new, [item for item in reversed(last_list) if item in recent] or recent[:1])


def _meant(new: str, items: list[str]) -> Changed | Unclear:
    """The item of `items` (the last list's open items) the new words of "I meant bread" go
    into: a whole item when they start with its verb ("I meant buy bread"), else the part after
    its first word ("buy milk": "buy bread"), of the one item, or of the one whose part after
    it is as many words, the same article first ("call the bank": "the bakery"), or ends the
    new words ("buy milk": "oat milk"); when no one item is it, the user is asked which."""
    said = words(new)
    first = said[0] if said else ""
    by_verb = [item for item in items if len(said) > 1 and words(item)[:1] == [first]]
    if len(by_verb) == 1:
        return Changed(by_verb[0], new)
    objects = [item for item in items if len(item.split()) > 1]
    alike = [item for item in objects if _object_like(item, said)]
    if len(objects) == 1 and len(items) == 1:
        alike = objects
    if len(alike) == 1:
        verb = alike[0].split()[0]
        return Changed(alike[0], f"{verb} {new}")
    return Unclear(new, tuple(items), changes=True, meant=True)


def _object_like(item: str, said: list[str]) -> bool:
    """Whether what follows the item's first word is said as `said` is: as many words, and
    the same article before them, or none."""
    obj = words(item)[1:]
    if len(obj) < len(said) and said[-len(obj) :] == obj:  # "milk": "oat milk"
        return True
    if len(obj) != len(said):
        return False
    article = obj[0] in _ARTICLES, said[0] in _ARTICLES
    return article == (False, False) or (all(article) and obj[0] == said[0])


def _holding(recent: list[str], old: str) -> str | None:
    """The most recent item holding the words of `old` as said (`holds`), else the most recent
    holding them in another case (`word_cases.inflected`: "замени колбасу на сыр" finds
    "колбаса")."""
    found = next((item for item in recent if holds(item, old)), None)
    for other in (inflected(old), _possessed(old)) if found is None else ():
        if other is not None and (found := next(filter(other.search, recent), None)):
            break
    return found


def _possessed(old: str) -> re.Pattern[str] | None:
    """The words of `old` as an item says them owning what follows ("Kate" in "call Kate's
    mom", "Kate's" in "call Kate’s mom"): "not Kate, Karen" found no item, since "Kate's" is
    one word to `holds`. None when `old` ends with no letter."""
    said = _POSSESSIVE.sub("", old.strip())
    if not said[-1:].isalpha():
        return None
    pattern = r"\s+".join(re.escape(word) for word in said.split())
    return re.compile(rf"(?<!\w){pattern}(?=['’]s(?!\w))", re.IGNORECASE)


_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)


def _replaced(item: str, old: str, new: str) -> str:
    """`item` with the words of `old` in it replaced by `new` (case aside, once): as said, or
    else in another case (`word_cases.inflected`) or owning what follows (`_possessed`)."""
    pattern = r"\s+".join(re.escape(word) for word in old.split())
    said = re.compile(rf"(?<!\w){pattern}(?!\w)", re.IGNORECASE)
    if not said.search(item) and (cased := inflected(old)) is not None:
        said = cased
    elif not said.search(item) and (owned := _possessed(old)) is not None:
        said, new = owned, _POSSESSIVE.sub("", new.strip())  # the item's own "’s" stays
    found = said.search(item)
    if found is None:
        return item
    before, after = without_owner(item[: found.start()], new), item[found.end() :]
    return before + _past_said(before, new.strip(), after) + after


def _past_said(before: str, new: str, after: str) -> str:
    """`new` without the words the item already says around the words it replaces: "I meant
    call dad, not mom" of "Call mom for her birthday" is "Call dad for her birthday", not
    "Call call dad ...", and "I meant call Tom back, not Bob" of "call Bob back re the quote"
    is "call Tom back re the quote", not "... Tom back back ..."."""
    kept, said = words(before), new.split()
    for count in range(min(len(kept), len(said) - 1), 0, -1):
        if kept[-count:] == words(" ".join(said[:count])):
            said = said[count:]
            break
    following = words(after)
    for count in range(min(len(following), len(said) - 1), 0, -1):
        if following[:count] == words(" ".join(said[-count:])):
            said = said[:-count]
            break
    return " ".join(said)


def _done(rest: str, recent: list[str], last_list: list[str]) -> Changed | Unclear:
    said = _DONE.sub(" ", rest)
    if (place := _PLACE.search(said)) is not None:
        at = int(place.group("n"))
        at_place = same_item(last_list[at - 1]) if 1 <= at <= len(last_list) else None
        # The list shown holds the inbox's own wording; `recent` may hold the user's.
        if (item := next((it for it in recent if same_item(it) == at_place), None)) is not None:
            return Changed(item, None)
        return Unclear(place.group(), tuple(recent))
    named = [word for word in words(said) if word not in _NAMING_NOTHING]
    matching = [item for item in recent if named and _names(item, named)]
    if len(matching) == 1:
        return Changed(matching[0], None)
    return Unclear(" ".join(named) or rest, tuple(matching or recent))


def _names(item: str, named: list[str]) -> bool:
    """Whether a word of `named` is a word of the item, give or take an ending ("подарок",
    "подарки"; "gift", "gifts")."""
    stems = {_stem(_POSSESSIVE.sub("", word)) for word in words(item)}
    return any(_stem(word) in stems for word in named)


def _stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word
