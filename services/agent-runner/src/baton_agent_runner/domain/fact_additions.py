"""An area's fact said again with "тоже"/"ещё"/"too": what the user adds to it, kept beside
what it held ("дети тоже" after "с мужем хочется больше времени вдвоём" left the fact
"дети", and the husband was lost)."""

# ruff: noqa: RUF001, RUF002  (Russian text, docstrings too, is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.areas import NAMES_ONLY, OWNING
from baton_agent_runner.domain.wording import normalised, words

# "тоже", "ещё", "также", "too", "also", "as well" in what is said of the area; not "ещё раз",
# "всё ещё", "still" (said again, not added), nor "не только", which says more of the same;
# nor before a removal ("also drop the girlfriend, ... friends instead" kept the girlfriend).
_ADDING = re.compile(
    r"(?<!\bвсе )\b(?:тоже|также|еще(?!\s+раз\b)|too|also|as\s+well)\b"
    r"(?!\s+(?:drop|remove|delete|take\s+out|убери|удали|вычеркни)\b)",
    re.IGNORECASE,
)


# Asked to add, of every area the message names: "only add the choir and yoga" replaced the
# health fact "gym" with "yoga".
_ADD = re.compile(r"\b(?:add|adding|plus|добавь|добавьте|добавить|добавлю|плюс)\b", re.IGNORECASE)


def adds_to(said: str) -> bool:
    """Whether what is said of an area adds to its fact ("дети тоже", "В отношениях ещё муж",
    "my sister too")."""
    return _ADDING.search(normalised(said)) is not None


def asks_to_add(message: str) -> bool:
    """Whether the message asks for what it names to be added ("add yoga", "добавь йогу")."""
    return _ADD.search(normalised(message)) is not None


def added(kept: str, said: str) -> str:
    """The fact `kept` with what `said` adds to it after a "; ": the richer one alone when the
    other holds its words or only the area's name ("family" and "family first": "family
    first")."""
    kept, said = kept.strip(), said.strip()
    if _only_names(said) or normalised(said) in normalised(kept):
        return kept
    if _only_names(kept) or normalised(kept) in normalised(said):
        return said
    return f"{kept}; {said}"


def _only_names(said: str) -> bool:
    """Whether `said` is only area names and whose they are ("my work", "Работа")."""
    return all(NAMES_ONLY.fullmatch(word) or word in OWNING for word in words(said))
