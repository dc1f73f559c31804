"""What the event store can keep: PostgreSQL's JSON has no NUL character (U+0000)."""

from __future__ import annotations

NUL = "\x00"
NUL_PROBLEM = "contains a NUL character (U+0000), which cannot be stored"


def nul_path(value: object, path: str) -> str | None:
    """Where in `value` the first NUL is (`data.notes[1]`; a key's NUL names its mapping).

    Walked with a stack, not recursion: how deep a caller's JSON nests is up to the caller.
    """
    stack: list[tuple[str, object]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str) and NUL in item:
            return where
        if isinstance(item, dict):
            if any(NUL in str(key) for key in item):
                return where
            stack.extend((f"{where}.{k}", v) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(item))))
    return None
