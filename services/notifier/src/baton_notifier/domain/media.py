"""Which request bodies the gateway reads: sent uncompressed, as a media type the route takes.

Pure: the entrypoints hand in a header's value and get back what to tell the caller, or None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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


YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")
"""The media types a workflow document is read as YAML under (`text/x-yaml`: older tools)."""

BodyFormat = Literal["json", "yaml"]


def media_type(content_type: str | None) -> str:
    """A `Content-Type`'s type and subtype in lower case, without parameters; "" for none."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def is_json(kind: str) -> bool:
    """Whether a media type (from `media_type`) is JSON: `application/json` or
    `application/<anything>+json`, the types FastAPI itself reads as JSON."""
    return kind == "application/json" or (
        kind.startswith("application/") and kind.endswith("+json")
    )


@dataclass(frozen=True)
class Accepts:
    """The media types a route reads its body as: JSON, and YAML too when `yaml`.

    A body of any other type, or with no `Content-Type` at all, is refused rather than read as
    JSON anyway: a form (`curl -d` sends `application/x-www-form-urlencoded`), a multipart
    upload or plain text was read as a document and refused for its first character, or
    worse, taken.
    """

    yaml: bool = False

    def format(self, kind: str) -> BodyFormat | None:
        """How a body of media type `kind` is read, or None when it is not."""
        if is_json(kind):
            return "json"
        if self.yaml and kind in YAML_TYPES:
            return "yaml"
        return None

    def refusal(self, content_type: str | None) -> str:
        """What a caller is told of the `Content-Type` it sent (None: it sent none)."""
        sent = f"is {content_type.strip()[:80]!r}" if content_type else "was not sent"
        json = "JSON (application/json or application/*+json)"
        if self.yaml:
            return f"{sent}; send the document as {json} or as YAML ({', '.join(YAML_TYPES)})"
        return f"{sent}; send the body as {json}"


JSON_BODY = Accepts()
"""What a route with a body model reads."""
DOCUMENT_BODY = Accepts(yaml=True)
"""What the DAG workflow document routes read."""
