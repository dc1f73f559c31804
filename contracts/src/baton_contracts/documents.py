"""Documents as their authors wrote them (workflow definitions, request bodies): JSON and YAML
readers that refuse a key given twice in one object, and read an unquoted YAML date as the
text written.

JSON's and YAML's usual readers keep the last of a repeated key without a word, so one of the
author's two values is lost; which one they meant cannot be known. No document field holds a
date: read as one, `2024-01-05` was refused as "not a string", and `2024-13-45` made the
reader raise.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Hashable
from typing import Any


class RepeatedKey(ValueError):
    """A JSON object with a key given twice."""


def unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`json`'s `object_pairs_hook`: the object, or `RepeatedKey` naming the key."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise RepeatedKey(f"key {key!r} is given twice in one object")
        found[key] = value
    return found


def read_json(text: str | bytes) -> Any:
    """`json.loads`, refusing a repeated key (`RepeatedKey`, a ValueError)."""
    return json.loads(text, object_pairs_hook=unique_object)


_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
_MERGE_TAG = "tag:yaml.org,2002:merge"


@functools.cache
def yaml_loader() -> Any:
    """PyYAML's safe loader, refusing a key given twice in one mapping (a `ConstructorError`
    with its line and column) and reading an unquoted date as text. PyYAML is imported here:
    only readers of YAML need it."""
    import yaml

    class DocumentLoader(yaml.SafeLoader):
        pass

    def unique_mapping(loader: Any, node: Any) -> dict[Any, Any]:
        seen: set[Hashable] = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG:
                continue  # `<<: *defaults`: a key next to it overrides the merged one, on purpose
            key = loader.construct_object(key_node)
            if not isinstance(key, Hashable):
                continue  # construct_mapping says what is wrong with it
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} is given twice", key_node.start_mark
                )
            seen.add(key)
        mapping: dict[Any, Any] = loader.construct_mapping(node)
        return mapping

    DocumentLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, unique_mapping)
    DocumentLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP_TAG]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return DocumentLoader
