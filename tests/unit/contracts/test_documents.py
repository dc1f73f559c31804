"""Documents as written: a key given twice is refused, an unquoted YAML date stays text."""

from __future__ import annotations

import pytest
import yaml  # type: ignore[import-untyped]

from baton_contracts.documents import (
    MAX_YAML_DEPTH,
    RepeatedKey,
    TooDeep,
    read_json,
    yaml_loader,
)


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


@pytest.mark.parametrize(
    ("text", "column"),
    [
        # Every `[` might start a key, and PyYAML looked back at each open one for every
        # token it read: 2 KB of them held the workflow service for seconds.
        ("[" * 5_000 + "]" * 5_000, 65),
        ("{a: " * 5_000 + "}" * 5_000, 257),
        ("- " * 100_000 + "x", 129),
    ],
    ids=["flow-lists", "flow-mappings", "block-lists"],
)
def test_yaml_nested_past_the_limit_is_refused_where_it_passes_it(text: str, column: int) -> None:
    with pytest.raises(TooDeep) as refused:
        yaml.load(text + "\n: not yaml", Loader=yaml_loader())  # never read so far
    assert str(refused.value) == (
        f"nested deeper than {MAX_YAML_DEPTH} levels of objects and lists (line 1, column {column})"
    )


def test_yaml_nested_as_deep_as_the_limit_is_read() -> None:
    depth = MAX_YAML_DEPTH
    assert yaml.load("[" * depth + "]" * depth, Loader=yaml_loader()) is not None
    loaded = yaml.load("- " * depth + "x", Loader=yaml_loader())
    for _ in range(depth):
        [loaded] = loaded
    assert loaded == "x"
