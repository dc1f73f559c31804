"""Putting the brain dump off with a reason ("not right now, I'm at work", "потом, я за
рулём"): the reason says where the user is, and holds no item."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain import readiness
from baton_agent_runner.domain.wording import words

# Every word of a reason is one of these: where the user is, or that they are busy ("I'm at
# work", "I'm driving", "in a meeting", "я занят", "я за рулём", "в дороге").
_BUSY = frozenset({
    "i'm", "im", "i", "am", "at", "work", "driving", "busy", "in", "a", "the", "meeting", "on",
    "call", "car", "road", "way", "out", "right", "now", "currently", "kinda", "pretty", "super",
    "really", "so", "very", "bit", "little", "with", "kids", "baby", "cooking", "dinner",
    "lunch", "gym", "train", "bus", "commuting", "travelling", "traveling", "office", "class",
    "school", "shift", "because", "cause", "cuz", "coz", "bc", "since", "sorry", "too",
    "я", "занят", "занята", "заняты", "на", "работе", "за", "рулем", "в", "дороге", "пути",
    "встрече", "совещании", "сейчас", "пока", "очень", "немного", "с", "детьми", "ребенком",
    "обедаю", "учебе", "паре", "метро", "машине", "еду", "тренировке", "зале", "потому", "что",
    "извини", "у", "меня", "дела", "много", "так", "как", "поэтому",
})  # fmt: skip
_CLAUSE_END = re.compile(r"[,.;:!…]+|\s[—–-]\s")


def puts_off_busy(text: str) -> bool:
    """Every clause of the text puts it off ("not right now", "потом") or says the user is
    busy (`_BUSY`: "I'm at work", "я за рулём"), or does both with no comma between ("not now
    because I'm driving"), and one of them puts it off; "later, call the bank" and "потом, я
    куплю хлеб" hold items."""
    parts = [words(part) for part in _CLAUSE_END.split(text) if words(part)]
    later = [readiness.puts_off(" ".join(part)) or _later_busy(part) for part in parts]
    busy = [_busy(part) for part in parts]
    return any(later) and all(map(any, zip(later, busy, strict=True)))


def _busy(said: list[str]) -> bool:
    return bool(said) and set(said) <= _BUSY


def _later_busy(said: list[str]) -> bool:
    """The clause puts it off, then says the user is busy, or the other way round, with no
    comma between ("not now because I'm driving", "я за рулём так что потом"): the saved
    item was the whole of it."""
    for cut in range(1, len(said)):
        head, tail = said[:cut], said[cut:]
        if readiness.puts_off(" ".join(head)) and _busy(tail):
            return True
        if _busy(head) and readiness.puts_off(" ".join(tail)):
            return True
    return False
