"""Interjections and laughter ("hmm", "umm", "lol", "хм", "эээ"): sounds that say nothing,
before "that's all" or standing alone."""

# ruff: noqa: RUF001, RUF003  (Russian text, comments too, is meant to be Cyrillic)

from __future__ import annotations

import re

# A drawn-out interjection ("ohhh", "hmmm", "ummm", "ммм", "эээ", "ааа"): no item, as "oh" is.
INTERJECTION = re.compile(r"(?:o+h+|a+h+|u+h+|u+m+|h+m+|e+r+m*|м+|э+м*|х+м+|о+|а+|у+)")
# Laughter and sighs, said as the interjections are ("lol that's all", "ugh that's it").
_SOUNDS = frozenset({
    "lol", "lmao", "haha", "hah", "hehe", "ugh", "welp", "meh", "omg", "oops", "whew", "phew",
    "лол", "хах", "хаха", "ахах", "хехе", "эх", "ох", "ой", "блин", "уф", "фух",
})  # fmt: skip


def is_interjection(token: str) -> bool:
    """The word (normalised, as `wording.words` gives it) is an interjection or laughter."""
    return token in _SOUNDS or INTERJECTION.fullmatch(token) is not None


def past_interjections(tokens: list[str], leading: frozenset[str]) -> list[str]:
    """`tokens` without the interjections among the `leading` words that open them: "hmm I
    think that's it" reads as "I think that's it"."""
    start = 0
    while start < len(tokens) and (tokens[start] in leading or is_interjection(tokens[start])):
        start += 1
    opening = [t for t in tokens[:start] if not is_interjection(t)]
    return opening + tokens[start:]
