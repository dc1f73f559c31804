"""What the greeter's "Начнём?"/"Ready to start?" is answered with, read for what it says: an
area ("работа") is no yes, even as the third calm message; and asking to skip the greeting
("can I skip this?") is no readiness before the user knows what is skipped. Each completed
the step (found by a probe)."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.output import AgentOutput
from baton_agent_runner.domain.scripted import Turn, run


def _greeter(message: str, language: str, *said: str) -> AgentOutput:
    """`message` after the user's `said`, each answered with the greeter's "how long" answer,
    which ends on its question whether to start."""
    asked = texts.text(language, "greeter_how_long")
    history = [e for s in said for e in ({"role": "user", "text": s},
                                         {"role": "assistant", "text": asked})]  # fmt: skip
    turn = Turn(agent="greeter", current_step="greeting", message=message, history=history,
                language=language, can_complete=True)  # fmt: skip
    return run(turn)


@pytest.mark.parametrize(("message", "language"), [("работа", "ru"), ("work and family", "en")])
def test_an_area_answered_to_shall_we_start_is_no_yes(message: str, language: str) -> None:
    out = _greeter(message, language, "hi", "how long does it take?")
    assert not out.step_completed
    assert out.message.endswith("Начнём?" if language == "ru" else "Ready to start?")
    assert "facts" in out.extracted_data


@pytest.mark.parametrize(("message", "language"), [("работа, поехали", "ru"), ("да", "ru")])
def test_an_area_with_a_yes_starts(message: str, language: str) -> None:
    assert _greeter(message, language, "hi", "how long does it take?").step_completed


@pytest.mark.parametrize(
    ("message", "language"),
    [("can I skip this?", "en"), ("can we skip this", "en"), ("можно это пропустить?", "ru")],
)  # fmt: skip
def test_asking_whether_to_skip_is_answered_not_taken_for_readiness(
    message: str, language: str
) -> None:
    out = _greeter(message, language, "hi")
    assert not out.step_completed
    assert out.message == texts.text(language, "greeter_skip_asked")
    # A yes to it starts, as to the greeter's other questions whether to start.
    history = [{"role": "user", "text": message}, {"role": "assistant", "text": out.message}]
    yes = run(Turn(agent="greeter", current_step="greeting", message="yes" if language == "en"
                   else "да", history=history, language=language, can_complete=True))  # fmt: skip
    assert yes.step_completed


@pytest.mark.parametrize("message", ["skip this", "hi, can we skip the intro?", "skip"])
def test_a_request_to_skip_still_moves_on(message: str) -> None:
    assert _greeter(message, "en", "hi").step_completed
