"""What holds the user back, said where discovery asks something else ("no time" to the
summary) is kept as the note of what holds them back, and the question asked again: "no
time" was read as a "no" to the summary (found by a probe)."""

from __future__ import annotations

import pytest

from .turns import to_summary


@pytest.mark.parametrize(
    ("message", "said"),
    [("no time", "Thanks, noted. Is the summary above right?"),
     ("not enough time honestly", "Thanks, noted. Is the summary above right?"),
     ("нет времени", "Спасибо, записал. Итог выше верный?")],
)  # fmt: skip
def test_a_complaint_at_the_summary_is_no_refusal(message: str, said: str) -> None:
    out = to_summary(message)
    assert out.message.startswith(said), out.message
    assert out.extracted_data == {"notes": {"constraints": message}}
    assert not out.step_completed


def test_a_no_at_the_summary_still_asks_what_to_correct() -> None:
    assert to_summary("no").message.startswith("What should I correct?")
