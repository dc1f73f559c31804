"""What chat adds around an area that is no part of its fact: thanks, and "obv" (each was
kept in the fact, found by a probe)."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import pytest

from .turns import discovery


@pytest.mark.parametrize(
    ("message", "facts"),
    [("family, thanks", {"relationships": "family"}),
     ("work obv", {"work": "work"}),
     ("health, thank you", {"health": "health"}),
     ("семья, спасибо", {"relationships": "семья"})],
)  # fmt: skip
def test_courtesy_and_filler_after_an_area_are_left_out(
    message: str, facts: dict[str, str]
) -> None:
    assert discovery(message).extracted_data == {"facts": facts}
