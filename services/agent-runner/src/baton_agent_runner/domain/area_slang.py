"""Chat's slang for the life areas, read with the area words of `areas`: "getting swole"
(health) and "my 9-5" (work) named no area."""

from __future__ import annotations

WORK_SLANG = (
    # A day job by its hours: "my 9-5", "9 to 5 is killing me", "a nine-to-five"; not a time
    # of its own ("9-5:30") nor a score in a longer number ("19-5").
    r"(?:9|nine)(?:\s*[-\u2013]\s*|[\s-]+to[\s-]+)(?:5|five)\b(?![:.]\d)",
    # Work with its vowel dropped: "wrk, gym, gf" kept "wrk, gym" as health.
    r"wrk\b",
)
HEALTH_SLANG = (
    # Muscle as gym talk says it: "getting swole", "hitting the gym to get swole".
    r"swole\b",
)
