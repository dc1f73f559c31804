"""Documents as their authors wrote them (workflow definitions, request bodies): JSON and YAML
readers that refuse a key given twice in one object, and read an unquoted YAML date as the
text written.

JSON's and YAML's usual readers keep the last of a repeated key without a word, so one of the
author's two values is lost; which one they meant cannot be known. No document field holds a
date: read as one, `2024-01-05` was refused as "not a string", and `2024-13-45` made the
reader raise. No document nests deeper than `MAX_YAML_DEPTH` either, and the YAML reader stops
at that level rather than reading on.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Hashable
from typing import Any

MAX_YAML_DEPTH = 64
"""How deep a YAML document may nest objects and lists. PyYAML's reader spends time growing with
the square of the depth of `[[[...` (2 KB of them held a service for seconds, since every
`[` might start a key it keeps looking back at), and recurses once per level; past this level
it stops at once. Documents have rules of their own well below it."""


class RepeatedKey(ValueError):
    """A JSON object with a key given twice."""


class TooDeep(ValueError):
    """A YAML document nesting objects and lists deeper than `MAX_YAML_DEPTH`."""

    def __init__(self, line: int, column: int) -> None:
        super().__init__(
            f"nested deeper than {MAX_YAML_DEPTH} levels of objects and lists"
            f" (line {line + 1}, column {column + 1})"
        )


def as_yaml_writes(value: Any) -> str:
    """A YAML scalar as YAML writes it (`null`, `true`, `1.5`, `.inf`), not as Python does
    (`None`, `True`): how a key that YAML read as no string is named to its author."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")
    return str(value)


NOT_TEXT_KEY = "a key must be a string (got {}); quote it in YAML"
"""What is wrong with a key YAML read as no string (`null:`, `1.5:`, `true:`), the key as
`as_yaml_writes` shows it in the braces."""


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
_BINARY_TAG = "tag:yaml.org,2002:binary"


@functools.cache
def yaml_loader(libyaml: bool | None = None) -> Any:
    """PyYAML's safe loader, refusing a key given twice in one mapping and a `!!binary` value
    (a `ConstructorError` with its line and column), reading an unquoted date as text, and
    raising `TooDeep` where a document nests past `MAX_YAML_DEPTH`. PyYAML is imported here:
    only readers of YAML need it.

    `libyaml`: read the text with libyaml's C parser (None: whenever PyYAML was built with it),
    about 4 times as fast as PyYAML's Python scanner and parser on a 500 KB workflow. Nodes are
    still composed and values built in Python, by the same code either way: that is where the
    depth, the repeated keys and the dates are looked after."""
    import yaml

    if libyaml is None:
        libyaml = bool(getattr(yaml, "__with_libyaml__", False))
    loader = _libyaml_loader() if libyaml else _python_loader()

    def unique_mapping(loader: Any, node: Any) -> dict[Any, Any]:
        seen: dict[Hashable, Any] = {}
        for key_node, _ in node.value:
            if key_node.tag == _MERGE_TAG:
                continue  # `<<: *defaults`: a key next to it overrides the merged one, on purpose
            key = loader.construct_object(key_node)
            if not isinstance(key, Hashable):
                continue  # construct_mapping says what is wrong with it
            if key in seen:
                earlier = seen[key]
                # 1 and true (or 1.0) are one key once read: say so, not "true is given twice".
                same = "" if type(earlier) is type(key) else f" (it equals the key {earlier!r})"
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} is given twice{same}", key_node.start_mark
                )
            seen[key] = key
        mapping: dict[Any, Any] = loader.construct_mapping(node)
        return mapping

    def no_binary(loader: Any, node: Any) -> None:
        # Read as bytes, a pydantic `str` field took it (decoded) and the document was then
        # stored as it was read: its JSON encoder failed on the bytes, a 500 for a bad request.
        raise yaml.constructor.ConstructorError(
            None, None, "a !!binary value is bytes, not text: write it as a string", node.start_mark
        )

    loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, unique_mapping)
    loader.add_constructor(_BINARY_TAG, no_binary)
    loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP_TAG]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return loader


def _depth_composer() -> Any:
    """PyYAML's composer, raising `TooDeep` at the first collection past `MAX_YAML_DEPTH`."""
    import yaml

    class DepthComposer(yaml.composer.Composer):
        def __init__(self) -> None:
            yaml.composer.Composer.__init__(self)
            self.depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            # Every collection, block or flow, nests here, one call per level.
            events: Any = self  # the parser's side of the loader: Python's or libyaml's
            leaf = events.check_event(yaml.ScalarEvent, yaml.AliasEvent)
            if self.depth >= MAX_YAML_DEPTH and not leaf:
                mark = events.peek_event().start_mark
                raise TooDeep(mark.line, mark.column)
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return DepthComposer


def _python_loader() -> Any:
    """PyYAML's safe loader, all in Python, refusing a document past `MAX_YAML_DEPTH`."""
    import yaml

    class DocumentLoader(_depth_composer(), yaml.SafeLoader):  # type: ignore[misc]
        def __init__(self, stream: Any) -> None:
            yaml.SafeLoader.__init__(self, stream)
            self.depth = 0  # DepthComposer's; SafeLoader ran Composer's own __init__

        def fetch_flow_collection_start(self, token_class: Any) -> None:
            # Refused as the scanner meets it: from the first `[`, PyYAML's scanner would
            # look back at every open level for each token it reads ahead.
            if self.flow_level >= MAX_YAML_DEPTH:
                mark = self.get_mark()
                raise TooDeep(mark.line, mark.column)
            super().fetch_flow_collection_start(token_class)

    return DocumentLoader


def _libyaml_loader() -> Any:
    """The safe loader reading events from libyaml's parser. Its composer (in C) is left out:
    it would neither count levels nor stop at the limit, and libyaml, made to read `[[[...`
    to the end, spends time growing with the square of the depth as PyYAML does. Composed
    in Python, the document is refused at the first level past the limit, before libyaml
    reads any further."""
    import yaml
    from yaml._yaml import CParser
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    composer: Any = _depth_composer()

    class DocumentLoader(composer, CParser, SafeConstructor, Resolver):  # type: ignore[misc]
        def __init__(self, stream: Any) -> None:
            try:
                CParser.__init__(self, stream)
            except UnicodeEncodeError as exc:  # a lone surrogate: refused as PyYAML does
                char = ord(exc.object[exc.start])
                reason = "special characters are not allowed"
                raise yaml.reader.ReaderError(
                    "<unicode string>", exc.start, char, "unicode", reason
                ) from None
            composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    return DocumentLoader


_JSON_TEXT = json.JSONEncoder(ensure_ascii=False)


def json_chars(value: Any, sizes: dict[int, int] | None = None) -> int:
    """About how many characters `value` takes as JSON: a node a YAML alias shares is counted
    every time it appears, but measured once (`sizes`, by id), so this takes as long as the
    text, however many times the aliases repeat it."""
    sizes = {} if sizes is None else sizes
    if isinstance(value, str):
        # As JSON writes it: a control character a YAML escape gave in 2 characters (`\e`)
        # is 6 there (`\u001b`).
        return len(_JSON_TEXT.encode(value))
    if not isinstance(value, dict | list):
        return len(str(value))
    if id(value) not in sizes:
        pairs = value.items() if isinstance(value, dict) else ((None, v) for v in value)
        sizes[id(value)] = 2 + sum(
            (0 if key is None else len(str(key)) + 4) + json_chars(item, sizes)
            for key, item in pairs
        )
    return sizes[id(value)]
