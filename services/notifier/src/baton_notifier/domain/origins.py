"""Where each field of a contract message came from in the HTTP request.

An error names a field the way the client sent it, whichever side found it wrong (the
gateway's own validation, or the owner behind it, which sees only the message): `body` or
`body.<path>` in the body, `query.<name>`, `path.<name>` (as the route's template names it)
or `header.<name>` (in lower case). Only the gateway knows which, so each route says it here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

BODY = "body"
TOKEN = "header.authorization"
"""Where the identity fields (`user_id`, `project_id`) come from: the bearer token."""

IDEMPOTENCY_KEY = "header.idempotency-key"

_IDENTITY = {"user_id": TOKEN, "project_id": TOKEN}
_HEAD = re.compile(r"[^.\[]*")


@dataclass(frozen=True)
class Origins:
    """`fields`: a message field -> where the request held it (`"path.instance_id"`, or
    `"body"` for a field the whole body became). `rest`: where every other field is, for a
    message carrying a document whose own paths its owner names (`"body"`), else None."""

    fields: Mapping[str, str] = field(default_factory=dict)
    rest: str | None = None

    def name(self, path: str | None) -> str | None:
        """`path`, a field of the message (`signal.data.x`, or None for no one field), as the
        request's (`body.data.x`). A field the request did not hold (a stored workflow's own
        step, say) keeps the owner's path."""
        if not path:
            return self.rest
        head = _HEAD.match(path)
        start = head.group() if head else path
        where = self.fields.get(start)
        if where is None and self.rest is None:  # a document's own `user_id` key is the body's
            where = _IDENTITY.get(start)
        if where is not None:
            return where + path[len(start) :]
        return f"{self.rest}.{path}" if self.rest else path

    def with_body(self, keys: Iterable[str]) -> Origins:
        """These, and each of `keys` as a field of the body (`body.<key>`) unless named here."""
        body = {key: f"{BODY}.{key}" for key in keys}
        return Origins({**body, **self.fields}, self.rest)


NOWHERE = Origins()
"""A message no field of which came from the request (identity fields aside)."""
