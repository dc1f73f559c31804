"""Why discovery asks, asked back in the words people use, gets the short answer and the
question again, at the summary too; and a cause said to "which matters most?" ("burnout")
is what holds the user back, not the answer. Each got "I did not quite get that", or was kept
as the focus (found by a probe)."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import texts

from .turns import discovery, to_question, to_summary


@pytest.mark.parametrize(
    ("message", "language"),
    [("why?", "en"), ("why are you asking?", "en"), ("why does it matter?", "en"),
     ("зачем ты спрашиваешь?", "ru"), ("почему ты спрашиваешь?", "ru")],
)  # fmt: skip
def test_why_at_the_summary_is_answered_then_asked_again(message: str, language: str) -> None:
    out = to_summary(message)
    assert out.message.startswith(texts.text(language, "faq_why")), out.message
    assert out.message.endswith(texts.text(language, "discovery_right"))
    assert out.extracted_data == {}


@pytest.mark.parametrize("message", ["зачем ты спрашиваешь?", "why are you asking?"])
def test_why_before_the_areas_is_answered(message: str) -> None:
    language = "ru" if "зачем" in message else "en"
    out = discovery(message)
    assert out.message.startswith(texts.text(language, "faq_why")), out.message


@pytest.mark.parametrize("message", ["burnout", "no time", "I'm too tired"])
def test_a_cause_said_to_which_matters_most_is_what_holds_back(message: str) -> None:
    out = to_question("focus", message)
    assert out.extracted_data == {"notes": {"constraints": message}}
    assert out.message == (
        f"{texts.text('en', 'discovery_thanks')} {texts.text('en', 'discovery_ask_focus')}"
    )
