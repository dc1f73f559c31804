"""Counts of inbox entries in the Russian texts carry their noun in the form the number takes:
"Нужно ещё хотя бы 2." left the reader to guess two of what."""

from __future__ import annotations

import pytest

from baton_agent_runner.domain import texts
from baton_agent_runner.domain.scripted import Turn, run


@pytest.mark.parametrize(
    ("count", "said"),
    [
        (1, "1 запись"), (2, "2 записи"), (4, "4 записи"), (5, "5 записей"), (11, "11 записей"),
        (12, "12 записей"), (21, "21 запись"), (22, "22 записи"), (0, "0 записей"),
    ],
)  # fmt: skip
def test_a_russian_count_of_entries_takes_the_nouns_form(count: int, said: str) -> None:
    assert texts.entries("ru", count) == said
    assert texts.entries("en", count) == str(count)


def test_the_brain_dump_says_how_many_entries_are_missing_with_their_noun() -> None:
    out = run(Turn(agent="inbox_collector", current_step="brain_dump", message="купить хлеб",
                   language="ru"))  # fmt: skip
    assert out.message.endswith("Нужно ещё хотя бы 2 записи."), out.message
    done = run(Turn(agent="inbox_collector", current_step="brain_dump", message="всё",
                    language="ru", inbox_count=1))  # fmt: skip
    assert "нужно хотя бы 3 записи" in done.message and "хотя бы 2 записи" in done.message
