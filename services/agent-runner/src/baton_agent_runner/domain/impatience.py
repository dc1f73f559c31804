"""Urging the greeter on ("just get on with it", "hurry up", "давай быстрее"): an impatient
user is ready, and the introduction's explanation again is what they asked not to get."""

# ruff: noqa: RUF003  (Russian text in comments is meant to be Cyrillic)

from __future__ import annotations

# Normalised phrases ("е" for "ё"), matched as whole words, as `readiness.READY` is. Each got
# "In short, how it works: ... Ready to start?" again.
IMPATIENT = (
    "get on with it", "get going", "hurry up", "hurry", "come on", "cmon", "c'mon",
    "just do it", "get to it", "get to the point", "skip the chit chat", "skip the chitchat",
    "move along", "move it", "chop chop", "faster", "speed it up", "enough talk",
    "давай быстрее", "быстрее", "побыстрее", "поторопись", "ближе к делу", "не тяни",
    "хватит болтать", "к делу", "давай к делу", "шевелись",
)  # fmt: skip
