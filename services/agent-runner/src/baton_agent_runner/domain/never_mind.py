"""Taking back what was about to be said ("never mind", "forget it", "забей", "проехали"):
nothing to add, and no part of an item said after it ("never mind, call grandma")."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.wording import normalised

# Each was saved as an item of its own, and kept in front of the one after it ("never mind,
# call grandma"). Not "forget the milk" nor "никогда не забудь", which name what to forget.
_NEVER_MIND = re.compile(
    r"(?:oh\s+|ok\s+|okay\s+|actually\s+|ah\s+|ой\s+|ну\s+|ладно\s+|а\s+)*"
    r"(?:never\s*mind|nvm|forget\s+(?:it|about\s+it|that)|doesn'?t\s+matter|no\s+matter"
    r"|(?:это\s+)?не\s*важно|забей(?:те)?|проехали|не\s+суть|забудь(?:те)?)"
    r"(?:\s+(?:then|lol|actually|тогда|уже))*"
)


def only_never_mind(text: str) -> bool:
    """The text only takes back what was about to be said ("never mind", "forget it",
    "неважно", "забей", "проехали"), past its marks: it names nothing to save."""
    said = re.sub(r"[^\w'\s]+", " ", normalised(text)).split()
    return bool(said) and _NEVER_MIND.fullmatch(" ".join(said)) is not None
