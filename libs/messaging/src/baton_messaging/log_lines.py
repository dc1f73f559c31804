"""A service process's log: one line per record on stderr, a user's text unable to forge one."""

from __future__ import annotations

import logging
import re

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
"""Control characters but tab, C1 ones too (NEL, U+0085, ends a line to Python's
`splitlines` and to some log viewers; CSI, U+009B, starts a terminal sequence to some), and
the Unicode line and paragraph separators."""

LEVELS = "DEBUG, INFO, WARNING, ERROR or CRITICAL"
"""The log levels a service takes (BATON_LOG_LEVEL), as its refusal names them: `logging` also
takes WARN and FATAL, which the gateway refuses."""
KNOWN_LEVELS = frozenset({"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"})


class OneLineFormatter(logging.Formatter):
    """Every record's message on one line: a line break or other control character in it
    (text a user sent: a run's cancel reason, a message) is written escaped (`\\n`,
    `\\x85`, `\\u2028`), so it cannot forge a log line of its own, nor send a terminal
    sequence to whoever tails the log. A traceback, appended after the message, keeps its
    lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        """The formatted line with control characters escaped."""
        line = super().formatMessage(record)
        if _CONTROL.search(line) is None:
            return line
        return _CONTROL.sub(lambda c: repr(c.group(0))[1:-1], line)


QUIET_BELOW_DEBUG = ("httpx", "httpcore")
"""Libraries whose INFO lines are one per request (httpx: `HTTP Request: POST ...` for every
model call and tool fetch): at any level but DEBUG they say only WARNING and above."""


def configure_logging(level: str | int) -> None:
    """The root logger of a service process: `LOG_FORMAT` on stderr, one line per record."""
    handler = logging.StreamHandler()
    handler.setFormatter(OneLineFormatter(LOG_FORMAT))
    logging.basicConfig(level=level, handlers=[handler])
    chosen = logging.getLogger().getEffectiveLevel()
    if chosen > logging.DEBUG:
        # Never below the chosen level: a record passes its own logger's level only, so at
        # ERROR a WARNING set here would let httpx's warnings through.
        for name in QUIET_BELOW_DEBUG:
            logging.getLogger(name).setLevel(max(logging.WARNING, chosen))
