"""What a message says beside an area's fact rather than in its place: a cause of how the
area goes ("night shifts wreck my sleep" after "my health is kinda bad") and one more thing
after "then" ("ok then the startup" after "I work as a nurse"). Each replaced the fact, as
something new said of the area itself does ("my job is a nightmare lately")."""

from __future__ import annotations

import re

from baton_agent_runner.domain.wording import normalised

# What acts on the area: "night shifts wreck my sleep", "stress is killing my sleep",
# "ночные смены убивают мой сон".
_CAUSE = re.compile(
    r"\b(?:wreck|ruin|kill|destroy|mess(?:es|ed|ing)?\s+(?:up|with)|hurt|drain|affect"
    r"|eat(?:s|ing)?\s+(?:into|up)|убива|убил|порт[ия]|разруша|съеда|отнима|сбива)\w*"
    r"\s+(?:(?:all|up)\s+)?(?:my|our|мо[йяеи]|моего|мою|наш\w*)\b"
)
# One more thing, opening the message: "ok then the startup", "then my startup", "потом
# стартап" ("тогда" only leads to what is said: "ок, тогда учёба — английский").
_THEN = re.compile(r"^\W*(?:(?:ok|okay|ок|окей|and|и)\W+)?(?:then|and\s+then|потом|затем)\b")


def goes_beside(said: str) -> bool:
    """Whether `said` (a message naming one area, or a part of one) is kept beside the area's
    fact: a cause, or one more thing after "then"."""
    lowered = normalised(said)
    return bool(_CAUSE.search(lowered) or _THEN.match(lowered))
