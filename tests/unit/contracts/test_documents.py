"""Documents as written: a key given twice is refused, an unquoted YAML date stays text."""

from __future__ import annotations

import pytest
import yaml  # type: ignore[import-untyped]

from baton_contracts.documents import RepeatedKey, read_json, yaml_loader


def test_json_with_a_key_given_twice_is_refused_naming_the_key() -> None:
    # json keeps the last value: one of the author's two was lost without a word.
    with pytest.raises(RepeatedKey, match="key 'agent' is given twice in one object"):
        read_json('{"steps": [{"id": "a", "agent": "x", "agent": "y"}]}')
    assert read_json('{"a": {"b": 1}, "c": {"b": 2}}') == {"a": {"b": 1}, "c": {"b": 2}}


def test_yaml_with_a_key_given_twice_is_refused_with_its_line() -> None:
    with pytest.raises(yaml.YAMLError) as refused:
        yaml.load("name: w\nsteps: []\nname: v\n", Loader=yaml_loader())
    assert "key 'name' is given twice" in str(refused.value)
    assert refused.value.problem_mark.line == 2  # type: ignore[attr-defined]


def test_yaml_merge_keys_and_dates_read_as_written() -> None:
    text = "base: &b {agent: x}\nstep:\n  <<: *b\n  agent: y\nwhen: 2024-01-05\n"
    loaded = yaml.load(text, Loader=yaml_loader())
    assert loaded["step"] == {"agent": "y"}  # a key beside a merge overrides it, on purpose
    assert loaded["when"] == "2024-01-05"
