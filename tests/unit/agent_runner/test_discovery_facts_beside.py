"""What a message adds to an area's fact rather than replacing it: a cause ("night shifts
wreck my sleep" after "my health is kinda bad"), and one more thing said after "then" ("ok
then the startup" after "I work as a nurse"). Each replaced the fact (found by a probe)."""

from __future__ import annotations

import pytest

from .turns import to_summary

FACTS = {"work": "I work as a nurse", "health": "my health is kinda bad", "relationships": "kids"}


@pytest.mark.parametrize(
    ("message", "facts"),
    [("night shifts wreck my sleep",
      {"health": "my health is kinda bad; night shifts wreck my sleep"}),
     ("stress is killing my sleep",
      {"health": "my health is kinda bad; stress is killing my sleep"}),
     ("ночные смены убивают мой сон",
      {"health": "my health is kinda bad; ночные смены убивают мой сон"}),
     ("ok then the startup", {"work": "I work as a nurse; the startup"}),
     ("then my startup", {"work": "I work as a nurse; my startup"})],
)  # fmt: skip
def test_a_cause_or_one_more_thing_is_kept_beside_the_fact(
    message: str, facts: dict[str, str]
) -> None:
    out = to_summary(message, facts=FACTS)
    assert out.extracted_data == {"facts": facts}
    assert f": {next(iter(facts.values()))}\n" in out.message  # the summary shows it


@pytest.mark.parametrize(
    ("message", "facts"),
    [("my job is a nightmare lately", {"work": "my job is a nightmare lately"}),
     ("No, work is my startup now", {"work": "my startup now"})],
)  # fmt: skip
def test_something_new_of_the_area_itself_still_replaces_it(
    message: str, facts: dict[str, str]
) -> None:
    assert to_summary(message, facts=FACTS).extracted_data == {"facts": facts}
