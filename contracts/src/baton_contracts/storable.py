"""What a JSON value must be for every store to keep it as it came, checked in one walk.

PostgreSQL's JSON and text types cannot hold a NUL character (U+0000). JSON has no NaN or
Infinity, yet Python's readers accept them (and turn an overflowing number like 1e999 into
Infinity) and its writers put `null` in their place, so the value would change on the way.
A lone UTF-16 surrogate (U+D800 to U+DFFF, which `\\ud800` in JSON text reads as) is no
character: no UTF-8 writer can put it out. Nesting is capped where a value is stored and sent
back inside replies: JSON readers on the way give up near 200 levels.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import AfterValidator, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

NUL = "\x00"
NUL_PROBLEM = "contains a NUL character (U+0000), which cannot be stored"
NUL_FREE_PATTERN = r"^[^\u0000]*$"
"""A string with no NUL, as a JSON Schema (ECMA-262) pattern: what the OpenAPI document says of
every string a store refuses a NUL in. Only stated there: the check stays `all_unstorable`
or `NulFreeText`'s, whose refusal names the field's path and the reason."""

Loc = tuple[str | int, ...]
Kind = Literal["depth", "nul", "number", "surrogate"]
SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate in a Python string (a pair read from JSON is one character already)."""


def _text_problem(text: str, nul: bool) -> tuple[Kind, str] | None:
    if nul and NUL in text:
        return "nul", NUL_PROBLEM
    if not text.isascii():
        found = SURROGATE.search(text)
        if found is not None:
            code = f"U+{ord(found.group()):04X}"
            return "surrogate", f"contains a lone surrogate ({code}), which cannot be stored"
    return None


def not_a_number_problem(value: float) -> str:
    """Why a NaN or an infinite number cannot be stored."""
    shown = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return f"is {shown}, which is not a JSON number and cannot be stored as sent"


@dataclass(frozen=True)
class Unstorable:
    """A value that cannot be stored: where it is and why.

    `loc` is relative to the walked value; a problem in a key names the mapping holding it.
    """

    loc: Loc
    kind: Kind
    problem: str

    def path(self, prefix: str = "") -> str:
        """`loc` written after `prefix`: `data` + `("notes", 1)` -> `data.notes[1]`."""
        return format_path(self.loc, prefix)


def format_path(loc: Loc, prefix: str = "") -> str:
    """`("steps", 2, "dependsOn")` -> `steps[2].dependsOn`, after `prefix` when one is given."""
    path = prefix
    for key in loc:
        path = f"{path}[{key}]" if isinstance(key, int) else key_path(path, key)
    return path


EMPTY_KEY = '[""]'
"""How a path names an empty key: `variables[""]`. Written after a dot it left the path
dangling (`body.variables.`), which reads as a path cut short, not as a key."""


def key_path(path: str, key: str) -> str:
    """The path of `key` in the object at `path`: `variables` + `v` -> `variables.v`, `v` at
    the top (`path` empty), and `variables[""]` for an empty key, which no dot can name."""
    if not key:
        return path + EMPTY_KEY
    return f"{path}.{key}" if path else key


def first_unstorable(
    value: object, *, max_depth: int | None = None, nul: bool = True, numbers: bool = True
) -> Unstorable | None:
    """The first problem in `value`, in document order, or None (see `all_unstorable`)."""
    return next(_unstorable(value, max_depth, nul=nul, numbers=numbers), None)


def all_unstorable(
    value: object, *, max_depth: int | None = None, nul: bool = True, numbers: bool = True
) -> list[Unstorable]:
    """Every problem in `value`, in document order, each by its own path: objects and lists
    nested more than `max_depth` levels (the value itself is level 1; what is inside one too
    deep is not looked at), a lone surrogate in a string or key, when `nul` a NUL character in
    one, and when `numbers` a NaN or an infinite number. A key's problem names the mapping
    holding it, once per key at fault.

    Walked with a stack, not recursion: how deep a caller's JSON nests is up to the caller.
    A container met again at the same depth is not walked again: YAML aliases can share one
    node so many times that walking every path would never end ("billion laughs"); and the
    walk goes no deeper than `max_depth`, so a YAML node holding itself ends it too. So the
    walk, and the list, grow with the value's size, not with its paths.
    """
    return list(_unstorable(value, max_depth, nul=nul, numbers=numbers))


def _unstorable(
    value: object, max_depth: int | None, *, nul: bool, numbers: bool
) -> Iterator[Unstorable]:
    stack: list[tuple[Loc, object]] = [((), value)]
    seen: set[tuple[int, int]] = set()
    while stack:
        loc, item = stack.pop()
        if isinstance(item, str):
            text = _text_problem(item, nul)
            if text is not None:
                yield Unstorable(loc, *text)
        elif isinstance(item, float):
            if numbers and not math.isfinite(item):
                yield Unstorable(loc, "number", not_a_number_problem(item))
        elif isinstance(item, dict | list):
            depth = len(loc) + 1
            if max_depth is not None and depth > max_depth:
                yield Unstorable(loc, "depth", f"nested more than {max_depth} levels deep")
                continue
            if (id(item), depth) in seen:
                continue
            seen.add((id(item), depth))
            if isinstance(item, dict):
                for key in item:
                    text = _text_problem(str(key), nul)
                    if text is not None:
                        yield Unstorable(loc, *text)
                stack.extend(((*loc, k), v) for k, v in reversed(item.items()))
            else:
                stack.extend(((*loc, i), v) for i, v in reversed(list(enumerate(item))))


def _without_nul(text: str) -> str:
    if NUL in text:
        raise PydanticCustomError("nul_character", NUL_PROBLEM)
    return text


class NulFreeInSchema:
    """`Annotated` metadata stating `NUL_FREE_PATTERN` in a string's JSON schema, without
    checking it: the check of its own (`_without_nul`) names the field and the problem."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {**handler(core_schema), "pattern": NUL_FREE_PATTERN}


NulFreeText = Annotated[str, AfterValidator(_without_nul), NulFreeInSchema]
"""A string every store keeps: no NUL character (U+0000), which PostgreSQL's text and JSON
types refuse. For the ids and values a request carries into the store as they are."""

BLANK_PROBLEM = "must not be blank"

NOT_SHOWN = frozenset({"Cc", "Cf"})
"""The Unicode categories of characters that do not show, besides white space: controls
(a text of BEL and ESC alone read as empty) and invisible format characters."""


def is_blank(text: str) -> bool:
    """Whether no character of `text` shows: each is white space, a control character
    (Unicode Cc: BEL, ESC, ...) or an invisible format character (Unicode Cf: zero-width
    spaces and joiners, the byte-order mark)."""
    return all(char.isspace() or unicodedata.category(char) in NOT_SHOWN for char in text)


def _not_blank(text: str) -> str:
    if is_blank(text):
        raise PydanticCustomError("blank_text", BLANK_PROBLEM)
    return text


NonBlankText = Annotated[NulFreeText, AfterValidator(_not_blank)]
"""`NulFreeText` with a character that shows: for an id a retry repeats, or a reason kept in a
log, where "   " was taken and kept as it came (a cancelled run's error "run cancelled:    ",
a signal recorded under the id "   "). Blank is refused, as an empty one is."""
