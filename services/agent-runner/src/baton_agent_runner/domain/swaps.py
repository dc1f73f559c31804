"""A swap asked of discovery's summary ("поменяй работу на учёбу", "replace work with study"),
said again as the "вместо"/"instead of" that discovery reads as one area out, another in."""

# ruff: noqa: RUF001  (Russian text is meant to be Cyrillic)

from __future__ import annotations

import re

from baton_agent_runner.domain.areas import named_in
from baton_agent_runner.domain.fact_edits import as_label

# "поменяй X на Y", "замени X на Y", "смени X на Y"; "replace/swap X with/for Y", "change X to
# Y", each X and Y within its clause. Both were saved as one fact for each area, X kept.
_SWAP = re.compile(
    r"\b(?:(?P<ru>помен(?:яй|яйте|ять)|замен(?:и|ите|ить)|смен(?:и|ите|ить))"
    r"|(?P<en>replace|swap|change))(?:\s*,?\s*(?:пожалуйста|please)\s*,?)?"
    r"\s+(?P<old>[^,.;:!?\n]+?)\s+"
    r"(?(ru)на|(?:with|for|to|into))\s+(?P<new>[^,.;:!?\n]+)",
    re.IGNORECASE,
)


# "drop the girlfriend, we broke up. friends instead", "убери девушку, вместо неё друзья":
# what an area holds taken out, and what it holds now. The area was taken out of the summary,
# or the fact kept both ("my girlfriend; friends instead").
_DROP_FOR = re.compile(
    r"\b(?:drop|remove|delete|take\s+out|убери(?:те)?|удали(?:те)?|вычеркни(?:те)?)\s+"
    r"(?P<old>[^,.;:!?\n]+?)\s*[,.;:!—–](?:[^\n]*?[,.;:!—–])??\s*"
    r"(?:(?P<new>[^,.;:!?\n]+?)\s+instead|(?:а\s+)?вместо\s+(?:этого|не[её]|него|них)\s*,?\s*"
    r"(?P<ru_new>[^,.;:!?\n]+?))\b[\s.!]*",
    re.IGNORECASE,
)


def as_instead(text: str) -> str:
    """The text with each swap of one life area for another said as "вместо X, Y" ("instead of
    X, Y"), of one area's word for another's too ("замени семью на друзей": "друзей"); a swap
    of anything else ("поменяй работу на удалёнку" names one area) as it is. What an area
    holds dropped for what it holds now ("drop the girlfriend, friends instead") is the new;
    an edit of one area's fact, its label and the new fact (`fact_edits`)."""
    return as_label(_DROP_FOR.sub(_dropped_for, _SWAP.sub(_instead, text)))


def _dropped_for(found: re.Match[str]) -> str:
    old, new = found["old"], found["new"] or found["ru_new"]
    same = named_in(new) and named_in(new) <= named_in(old)
    return new if same else found.group()


def _instead(found: re.Match[str]) -> str:
    old, new = found["old"], found["new"]
    if not (named_in(old) and named_in(new)):
        return found.group()
    if named_in(new) <= named_in(old):  # the same area, said another way: what it is now
        return new
    return f"вместо {old}, {new}" if found["ru"] else f"instead of {old}, {new}"
