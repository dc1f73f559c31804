"""A correction whose new words name their own owner ("I meant Karen's sister, not mom" of "call
Kate's mom"): the owner the item named goes with the words it owned."""

# ruff: noqa: RUF001  (the typographic apostrophe is meant: phones type it)

from __future__ import annotations

import re

# Who owns what follows: "Kate's", "the kids'", "my", "her".
_OWNER = r"(?:[^\W\d_][\w-]*(?:['’]s|s['’])|my|your|his|her|our|their)"
_OWNED_BEFORE = re.compile(rf"(?<!\w){_OWNER}\s*$", re.IGNORECASE)
_OWNS_NEXT = re.compile(rf"^{_OWNER}\s+\w", re.IGNORECASE)


def without_owner(before: str, new: str) -> str:
    """`before` (the item up to the words a correction replaces) without the owner that ends
    it, when `new` names an owner of its own: "call Kate's mom", corrected to "Karen's
    sister", read "call Kate's Karen's sister"; "call Karen's sister" now."""
    if not _OWNS_NEXT.match(new.strip()):
        return before
    return _OWNED_BEFORE.sub("", before)
