"""Which request bodies the gateway reads: sent uncompressed, as a media type the route takes.

Pure: the entrypoints hand in a header's value and get back what to tell the caller, or None.
"""

from __future__ import annotations

IDENTITY = "identity"
"""The one content coding a body may be sent with: none at all."""


def coding_refusal(content_encoding: str) -> str | None:
    """What is wrong with a body sent with this `Content-Encoding`, or None when nothing is.

    No route decompresses: every client of the gateway (the CLI, the console, curl as the docs
    use it) sends bodies as they are, the bodies are small (BATON_MAX_BODY_BYTES), and reading
    gzip or deflate would let a few kilobytes grow into gigabytes past the limit. A compressed
    body read as it came was refused as "not UTF-8", blaming text that was fine.
    """
    codings = [coding.strip().lower() for coding in content_encoding.split(",")]
    if all(coding in ("", IDENTITY) for coding in codings):
        return None
    return (
        f"is {content_encoding.strip()[:80]!r}; request bodies must be sent uncompressed "
        f"(no Content-Encoding, or {IDENTITY!r})"
    )
