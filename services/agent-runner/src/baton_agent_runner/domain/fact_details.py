"""An area said to be someone or something of the user's: "family is my wife and kids",
"hobbies are my guitar and chess". The fact is the detail ("my wife and kids"), as after
"means" or a colon; it was the whole sentence ("family is my wife and kids"). Fragments of
`areas._NAMED_AS` and `areas._DEGREE`."""

from __future__ import annotations

DEFINED_AS = r"|(?<=\s)(?:is|are)\s+(?=(?:my|our)\s+\S)"
"""An alternative of `areas._NAMED_AS`'s separators: "is"/"are" before "my"/"our" (not "work
is freelancing now", "my health is kinda bad", which say how the area goes)."""

DEGREE_MORE = r"|(?:(?:top|first|main|number\s+one|#1)\s+)?priority|life|world|number\s+one"
"""Alternatives of `areas._DEGREE`: "work is my life", "family is my top priority" say how much
the area matters, and keep the whole sentence."""
