"""Profile files: the shipped ones load; a bad one is refused naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from baton_agent_runner.adapters.profiles import SHIPPED_PROFILES, ProfileInvalid, load_profiles
from baton_agent_runner.domain.profile import PROMOTE_DEFERRED_INBOX

GOOD = """\
slug: collector
role: collects
system_prompt: {en: collect, ru: собирай}
"""


def test_the_inbox_collector_promotes_deferred_items_when_its_step_starts() -> None:
    profiles = load_profiles(SHIPPED_PROFILES)
    assert profiles["inbox_collector"].on_step_start == [PROMOTE_DEFERRED_INBOX]
    assert all(not p.on_step_start for slug, p in profiles.items() if slug != "inbox_collector")


def test_an_unknown_step_start_action_is_refused_naming_file_and_field(tmp_path: Path) -> None:
    (tmp_path / "collector.yaml").write_text(GOOD + "on_step_start: [empty_inbox]\n")
    with pytest.raises(ProfileInvalid) as caught:
        load_profiles(tmp_path)
    message = str(caught.value)
    assert "collector.yaml" in message and "on_step_start" in message
    assert "promote_deferred_inbox" in message  # what it may be


def test_a_profile_without_step_start_actions_has_none(tmp_path: Path) -> None:
    (tmp_path / "collector.yaml").write_text(GOOD)
    assert load_profiles(tmp_path)["collector"].on_step_start == []
