""" "забудь" ("forget it"), "забудь это" alone: right after the brain dump saved items, the
item saved last is taken back, as "удали последнее" takes it (`inbox_removals`). It was read
as nothing saved ("never mind"), and the item stayed; "забудь это" was saved as an item.
With nothing just saved, it takes back what was about to be said, as before."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.wording import normalised

_FORGET = re.compile(
    r"(?:(?:ой|ладно|нет|а|ну)\s+)*забудь(?:те)?"
    r"(?:\s+(?:это|его|е[её]|про\s+это|об\s+этом|последнее|последнюю))?"
)


def says_forget(message: str) -> bool:
    """The message is "забудь" alone, or of "это", past its marks ("Забудьте!", "ой, забудь")."""
    said = re.sub(r"[^\w'\s]+", " ", normalised(message)).split()
    return bool(said) and _FORGET.fullmatch(" ".join(said)) is not None
