"""The check every service gives a setting that names an HTTP endpoint (the OTLP collector,
a model server, a search service): at start, naming the value, rather than at its first use."""

from __future__ import annotations

from urllib.parse import urlsplit


def checked_http_url(value: str, *, example: str) -> str:
    """`value` when it is an http:// or https:// URL with a host and, if any, a port that is a
    number from 0 to 65535; otherwise a ValueError that quotes it and shows `example`."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises on a port that is no number or out of range
    except ValueError as exc:
        raise ValueError(f"not a URL ({exc}): {value!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"must be an http:// or https:// URL with a host, such as {example}, got {value!r}"
        )
    return value
