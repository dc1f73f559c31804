"""The one error the CLI shows as a single line: what failed and where to look."""

from __future__ import annotations


class CliError(Exception):
    """A failure the user can act on; `main` prints it as `error: <message>` and exits 1."""


class UsageError(CliError):
    """A bad option or argument: exit 2, as for the parser's own usage errors."""
