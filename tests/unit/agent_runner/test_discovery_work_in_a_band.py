"""A band the user works in is work alone: "I work in a band" named hobbies too, by its "in a
band" (found by a probe)."""

from __future__ import annotations

import pytest

from .turns import discovery


@pytest.mark.parametrize(
    ("message", "areas"),
    [("I work in a band", ["work"]),
     ("I work as a musician in a band", ["work"]),
     ("I play in a band", ["hobbies"]),
     ("work, and I play in a band", ["work", "hobbies"]),
     ("music and family", ["hobbies", "relationships"])],
)  # fmt: skip
def test_a_band_one_works_in_is_work_alone(message: str, areas: list[str]) -> None:
    assert sorted(discovery(message).extracted_data["facts"]) == sorted(areas)
