"""A go-ahead to the brain dump's "Ready?" or a return after a pause ("го", "fire away", "I'm
back", "я тут"): it says the user is about to write, and holds no item."""

# ruff: noqa: RUF002, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

from functools import cache

from baton_agent_runner.domain.finishing import LEADING
from baton_agent_runner.domain.readiness import GO, READY, WITH_GO
from baton_agent_runner.domain.wording import words

# Beyond the greeter's readiness words (`readiness.READY`, `GO`): a go-ahead to ask away, a
# guarded "yes", and coming back after "No rush" ("ok I'm back", "так, я тут") were each
# saved as an item and counted toward the three.
_GOING_AHEAD = (
    "fire away", "hit me", "shoot", "go on", "i suppose so", "i guess so", "i think so",
    "suppose so", "guess so", "why not", "i'm back", "im back", "i am back", "back again",
    "i'm here", "im here", "i am here", "норм", "нормально", "можно", "я вернулся",
    "я вернулась", "вернулся", "вернулась", "я тут", "я здесь", "я снова тут", "я снова здесь",
    "готов писать", "готова писать",
)  # fmt: skip
# Said around it ("ok, I'm ready now", "ready when you are", "ну го").
_AROUND = WITH_GO | LEADING | frozenset({
    "i", "i'm", "im", "am", "now", "when", "you", "are", "we", "can", "sure", "yes", "yeah",
    "ok", "okay", "then", "all", "right", "alright", "so", "я", "уже", "теперь", "ну", "так",
    "ладно", "хорошо", "давай", "окей", "ок", "тогда", "снова",
})  # fmt: skip


def only_goes_ahead(text: str) -> bool:
    """The text only says to go ahead, or that the user is back ("го", "lets gooo", "sure,
    shoot", "ready when you are", "I'm back", "я тут"): no item. A word of its own keeps it
    one ("go to the bank", "start a blog", "можно записать к врачу")."""
    said = words(text)
    at, heard = 0, False
    while at < len(said):
        if (length := _phrase_at(said, at)) or said[at] in GO:
            at, heard = at + (length or 1), True
        elif said[at] in _AROUND:
            at += 1
        else:
            return False
    return heard


def _phrase_at(said: list[str], at: int) -> int:
    """The length of the longest go-ahead phrase that starts at `at` (0: none)."""
    for phrase in _phrases():
        if said[at : at + len(phrase)] == phrase:
            return len(phrase)
    return 0


@cache
def _phrases() -> tuple[list[str], ...]:
    """Every go-ahead phrase as its words, the longest first."""
    every = [words(phrase) for phrase in (*READY, *_GOING_AHEAD)]
    return tuple(sorted(every, key=len, reverse=True))
