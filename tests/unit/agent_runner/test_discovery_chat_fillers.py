"""What chat adds around an area that is no part of its fact: thanks, "obv", and Russian
"вообще" (each was kept in the fact, found by a probe)."""

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


@pytest.mark.parametrize(
    ("message", "facts"),
    [("family вообще", {"relationships": "family"}),
     ("семья вообще", {"relationships": "семья"}),
     ("работа в общем", {"work": "работа"})],
)  # fmt: skip
def test_russian_filler_after_an_area_is_left_out(message: str, facts: dict[str, str]) -> None:
    assert discovery(message).extracted_data == {"facts": facts}


def test_vobshche_that_says_how_an_area_goes_stays() -> None:
    # "вообще" before what it stresses is no filler: it says how work goes.
    out = discovery("работа вообще не радует")
    assert out.extracted_data == {"facts": {"work": "работа вообще не радует"}}
