"""What a message says around an area's fact, no part of it: that it was said before, or
forgotten, and a request about the area; each was kept as the fact the summary showed (found
by a probe)."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain.output import AgentOutput

from . import turns
from .turns import discovery

FACTS = {"work": "my job", "health": "gym", "growth": "uni"}


def to_summary(message: str, facts: dict[str, str] = FACTS) -> AgentOutput:
    return turns.to_summary(message, facts=facts)


@pytest.mark.parametrize(
    ("message", "facts"),
    [("don't remove work, I still work as a nurse", {"work": "I still work as a nurse"}),
     ("не убирай работу, я всё ещё медсестра", {"work": "я всё ещё медсестра"}),
     ("you forgot my health: my knees, the doctor", {"health": "my knees, the doctor"}),
     ("work i said", {"work": "work"}),
     ("здоровье тоже, я же сказал", {"health": "здоровье"}),
     ("not work — family", {"relationships": "family"}),
     ("работу всё-таки верни", {"work": "работа"})],
)  # fmt: skip
def test_what_is_said_around_a_fact_is_left_out(message: str, facts: dict[str, str]) -> None:
    assert discovery(message).extracted_data == {"facts": facts}


def test_a_request_to_keep_an_area_keeps_it_with_what_follows() -> None:
    out = to_summary("don't remove work, I still work as a nurse")
    assert out.extracted_data == {"facts": {"work": "I still work as a nurse"}}


@pytest.mark.parametrize("message", ["work i said", "здоровье тоже, я же сказал"])
def test_an_area_said_again_keeps_its_fact(message: str) -> None:
    assert "facts" not in to_summary(message).extracted_data


def test_an_area_asked_back_is_restored() -> None:
    out = to_summary("работу всё-таки верни", facts={"health": "gym", "growth": "uni"})
    assert out.extracted_data == {"facts": {"work": "работа"}}
