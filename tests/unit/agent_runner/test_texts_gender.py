"""The scripted agents' Russian texts speak to a user whose gender they do not know: no word
addressed to the user agrees with one ("когда будешь готов" spoke to a man only)."""

from __future__ import annotations

import re

import pytest

from baton_agent_runner.domain.texts import TEXTS

# A short adjective or a past verb after a word that speaks to the user: "будешь готов",
# "ты устал", "если ты закончил". The agent's own "я понял" is its own gender, and fine.
_GENDERED = re.compile(
    r"\b(?:ты|будешь|будь)\s+(?:\w+\s+)?(?:готов|готова|уверен|уверена|рад|рада|свободен|"
    r"свободна|занят|занята|должен|должна|\w+л|\w+ла)\b",
    re.IGNORECASE,
)


@pytest.mark.parametrize("key", sorted(TEXTS))
def test_no_russian_text_speaks_to_the_user_as_a_man_or_a_woman(key: str) -> None:
    said = TEXTS[key].get("ru", "")
    assert _GENDERED.search(said) is None, said
