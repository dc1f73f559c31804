"""Documents as written: a key given twice is refused, an unquoted YAML date stays text.

Every YAML guarantee holds for both readers: libyaml's (the default, when PyYAML has it) and
PyYAML's own in Python.
"""

from __future__ import annotations

from typing import Any

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


@pytest.fixture(params=[True, False], ids=["libyaml", "python"])
def loader(request: pytest.FixtureRequest) -> Any:
    if request.param and not yaml.__with_libyaml__:
        pytest.skip("PyYAML was built without libyaml")
    return yaml_loader(libyaml=request.param)


def test_yaml_is_read_by_libyaml_where_pyyaml_has_it() -> None:
    # About 4 times as fast on a 500 KB workflow as PyYAML's parser in Python.
    if not yaml.__with_libyaml__:
        pytest.skip("PyYAML was built without libyaml")
    assert issubclass(yaml_loader(), yaml.cyaml.CParser)
    assert not issubclass(yaml_loader(libyaml=False), yaml.cyaml.CParser)


def test_yaml_with_a_key_given_twice_is_refused_with_its_line(loader: Any) -> None:
    with pytest.raises(yaml.YAMLError) as refused:
        yaml.load("name: w\nsteps: []\nname: v\n", Loader=loader)
    assert "key 'name' is given twice" in str(refused.value)
    assert refused.value.problem_mark.line == 2  # type: ignore[attr-defined]


def test_yaml_merge_keys_and_dates_read_as_written(loader: Any) -> None:
    text = "base: &b {agent: x}\nstep:\n  <<: *b\n  agent: y\nwhen: 2024-01-05\n"
    loaded = yaml.load(text, Loader=loader)
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
def test_yaml_nested_past_the_limit_is_refused_where_it_passes_it(
    loader: Any, text: str, column: int
) -> None:
    with pytest.raises(TooDeep) as refused:
        yaml.load(text + "\n: not yaml", Loader=loader)  # never read so far
    assert str(refused.value) == (
        f"nested deeper than {MAX_YAML_DEPTH} levels of objects and lists (line 1, column {column})"
    )


def test_yaml_nested_as_deep_as_the_limit_is_read(loader: Any) -> None:
    depth = MAX_YAML_DEPTH
    assert yaml.load("[" * depth + "]" * depth, Loader=loader) is not None
    loaded = yaml.load("- " * depth + "x", Loader=loader)
    for _ in range(depth):
        [loaded] = loaded
    assert loaded == "x"


def test_yaml_nested_past_the_limit_as_long_as_a_workflow_may_be_is_refused_at_once(
    loader: Any,
) -> None:
    # Read to its end, 512 KB of `[` held either reader for minutes (libyaml too looks back
    # at every open level for each token); refused at level 65, it reads no further.
    with pytest.raises(TooDeep, match="column 65"):
        yaml.load("[" * 512 * 1024, Loader=loader)


def test_yaml_with_a_lone_surrogate_is_refused_as_unreadable(loader: Any) -> None:
    with pytest.raises(yaml.reader.ReaderError, match="#xd800: special characters"):
        yaml.load("name: \ud800", Loader=loader)


def test_yaml_aliases_share_one_value(loader: Any) -> None:
    # The size check of a YAML workflow measures a shared value once (by identity).
    loaded = yaml.load("a: &p {x: 1}\nb: *p\n", Loader=loader)
    assert loaded["a"] is loaded["b"]


def test_keys_that_are_one_key_once_read_say_so(loader: Any) -> None:
    # 1 and true are equal in Python: "key True is given twice" named a key given once.
    with pytest.raises(yaml.YAMLError) as refused:
        yaml.load('variables: {1: "a", true: "b"}\n', Loader=loader)
    assert "key True is given twice (it equals the key 1)" in str(refused.value)
