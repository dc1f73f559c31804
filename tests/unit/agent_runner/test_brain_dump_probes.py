"""Brain dump messages a probe conversation found misread: a list or its heading after an
opener of filler ("omg ok. 1) call mom 2) pay rent", "так, дела: купить хлеб")."""

from __future__ import annotations

from typing import Any

import pytest

from baton_agent_runner.domain import language as lang
from baton_agent_runner.domain.scripted import Turn, run


def turn(message: str, **extra: Any) -> Turn:
    return Turn(
        agent="inbox_collector",
        current_step="brain_dump",
        message=message,
        language=lang.language_of(message),
        messages_in_step=1,
        **extra,
    )


_THREE = ["call mom", "pay rent", "book dentist"]


@pytest.mark.parametrize(
    ("message", "items"),
    [
        # Saved as "omg ok" and "1) call mom 2) pay rent 3) book dentist".
        ("omg ok. 1) call mom 2) pay rent 3) book dentist", _THREE),
        ("ok 1. call mom 2. pay rent 3. book dentist", _THREE),
        ("ну вот: 1) купить хлеб 2) позвонить маме", ["купить хлеб", "позвонить маме"]),
        # The heading was kept in the first item ("дела: купить хлеб").
        ("так, дела: купить хлеб", ["купить хлеб"]),
        ("так, дела: купить хлеб; позвонить маме", ["купить хлеб", "позвонить маме"]),
        ("ok so, todo: buy bread", ["buy bread"]),
        # No list after it: read as it stands.
        ("ok, call mom 2) later", ["call mom 2) later"]),
        ("so, buy 2 apples", ["buy 2 apples"]),
    ],
)  # fmt: skip
def test_a_list_or_its_heading_after_an_opener_is_read_as_a_list(
    message: str, items: list[str]
) -> None:
    out = run(turn(message))
    assert out.extracted_data == {"inbox_items": items}
