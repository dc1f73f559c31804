"""HS256 bearer tokens naming a user (and a project): minted locally, verified at the edge."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache

import jwt

from baton_auth.refusals import EXPIRED, InvalidToken, TokenRefusal, not_three_parts, refusal
from baton_contracts.base import is_nfc
from baton_contracts.ids import PROJECT_ID_MEANING, PROJECT_ID_PATTERN

ALGORITHM = "HS256"
ISSUER = "baton"
MIN_SECRET_BYTES = 32  # RFC 7518 §3.2: an HS256 key must be at least as long as the hash
VERIFIED_TOKENS_KEPT = 4096
"""How many verified tokens `verify_token` remembers (least recently used out first)."""


@dataclass(frozen=True)
class Identity:
    """Who a verified token speaks for, and until when.

    `valid_until` is the moment `verify_token` starts refusing the token (its `exp` plus the
    leeway it was checked with), for a holder of a long-lived connection to end it then; None
    when unknown. It is not part of who: identities of two tokens of one user compare equal.
    """

    user_id: str
    project_id: str | None = None
    valid_until: datetime | None = field(default=None, compare=False)


def check_secret(secret: str) -> str:
    """Refuse a signing secret too short to be safe; return it unchanged otherwise."""
    if len(secret.encode()) < MIN_SECRET_BYTES:
        raise ValueError(
            f"JWT secret must be at least {MIN_SECRET_BYTES} bytes (got {len(secret.encode())})"
        )
    return secret


MAX_USER_ID_CHARS = 128
# A user id becomes one token of NATS subjects (`workflow.evt.<name>.<user_id>.<instance>`),
# so it may not hold a subject separator or wildcard, nor white space.
_UNFIT_IN_SUBJECTS = frozenset(".*>")
USER_ID_RULE = (
    f"1 to {MAX_USER_ID_CHARS} characters, none of them white space, a control, format, "
    "private-use, unassigned or other unprintable character (Unicode categories C and Z), "
    "'.', '*' or '>': a user id is one token of NATS subjects; and in Unicode normal form C "
    "(NFC), so that one name has one spelling"
)
"""`user_id_problem`'s rule in words, for the OpenAPI document of a field that takes one."""
USER_ID_PATTERN = (
    r"^[^\u0000-\u0020\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f"
    r"\u205f-\u206f\u3000\ue000-\uf8ff\ufeff\ufff9-\ufffb.*>]+$"
)
"""A JSON Schema (ECMA-262) pattern for a user id, stated for clients, never checked: every
user id `user_id_problem` takes matches it, and so does no other text of Latin-1 (U+0000 to
U+00FF). Past Latin-1 it leaves out only the spaces and format characters of the
Basic Multilingual Plane and the private-use area; the rest of the rule is by Unicode category
(and which code points are assigned), which a pattern cannot say for every Unicode version."""


def user_id_problem(user_id: str) -> str | None:
    """Why `user_id` cannot name a user, or None when it can."""
    if not user_id.strip():
        return "must not be blank"
    if len(user_id) > MAX_USER_ID_CHARS:
        return f"must have at most {MAX_USER_ID_CHARS} characters, got {len(user_id)}"
    for at, char in enumerate(user_id):
        if char.isspace() or not char.isprintable() or char in _UNFIT_IN_SUBJECTS:
            return (
                "must not contain spaces, control or unprintable characters, '.', '*' or '>'"
                f" (found {char!a} at position {at})"
            )
    if not is_nfc(user_id):
        # Refused, not normalised: data may already be stored under either spelling, and
        # mapping one onto the other would hand it to whoever holds a token for the look-alike.
        return (
            "must be in Unicode normal form C (NFC): it has letters spelled as a base and a "
            "separate combining mark, which look like another user's id; use the NFC form "
            f"{unicodedata.normalize('NFC', user_id)!a}"
        )
    return None


def project_id_problem(project_id: object) -> str | None:
    """Why `project_id` cannot name a project, or None when it can."""
    if isinstance(project_id, str) and re.fullmatch(PROJECT_ID_PATTERN, project_id):
        return None
    return f"is not a project id ({PROJECT_ID_MEANING})"


def mint_token(
    secret: str,
    user_id: str,
    *,
    project_id: str | None = None,
    ttl: timedelta = timedelta(hours=12),
    now: datetime | None = None,
) -> str:
    """A signed token for `user_id`, valid for `ttl` from `now`."""
    if (problem := user_id_problem(user_id)) is not None:
        raise ValueError(f"user_id {problem}")
    if project_id is not None and (problem := project_id_problem(project_id)) is not None:
        raise ValueError(f"project_id {problem}")
    issued = now or datetime.now(UTC)
    claims: dict[str, object] = {
        "sub": user_id,
        "iss": ISSUER,
        "iat": int(issued.timestamp()),
        "exp": int((issued + ttl).timestamp()),
    }
    if project_id:
        claims["project_id"] = project_id
    return jwt.encode(claims, check_secret(secret), algorithm=ALGORITHM)


def verify_token(secret: str, token: str, *, leeway_seconds: float = 5.0) -> Identity:
    """The identity a token carries, or `InvalidToken` saying what is wrong with it.

    A client sends the same token with every request, and checking it (base64, HMAC, claims)
    was about a fifth of the gateway's time per request. So a token that verified is
    remembered, keyed by the secret and the whole token, signature included: only the very
    same string signed with the same key is answered from memory, and its expiry is still
    checked on every call. A refused token is never remembered.
    """
    identity = _verified(secret, token, leeway_seconds)
    if identity.valid_until is not None and datetime.now(UTC) >= identity.valid_until:
        raise InvalidToken(EXPIRED, TokenRefusal.EXPIRED)
    return identity


@lru_cache(maxsize=VERIFIED_TOKENS_KEPT)
def _verified(secret: str, token: str, leeway_seconds: float) -> Identity:
    if token.count(".") != 2:
        raise not_three_parts(token)
    try:
        claims = jwt.decode(
            token,
            secret,
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            leeway=leeway_seconds,
            options={"require": ["sub", "exp", "iss"]},
        )
    except jwt.PyJWTError as exc:
        raise refusal(exc) from None
    user_id = claims.get("sub")
    if not isinstance(user_id, str) or not user_id.strip():
        raise InvalidToken("token names no user (claim 'sub')", TokenRefusal.INVALID_CLAIM)
    # A token from elsewhere (an identity provider) may name a user Baton cannot serve: the id
    # is a NATS subject token, so every request of theirs would fail deeper, as a 500.
    problem = user_id_problem(user_id)
    if problem is not None:
        raise InvalidToken(f"token's user (claim 'sub') {problem}", TokenRefusal.INVALID_CLAIM)
    # Taken as sent, a project id of any form reached every command and `/api/me`; null is
    # taken as no project, like a token without the claim.
    project = claims.get("project_id")
    if project is not None and (problem := project_id_problem(project)) is not None:
        raise InvalidToken(
            f"token's project (claim 'project_id') {problem}", TokenRefusal.INVALID_CLAIM
        )
    return Identity(
        user_id=user_id,
        project_id=project,
        valid_until=_valid_until(claims["exp"], leeway_seconds),
    )


def _valid_until(exp: float | str, leeway_seconds: float) -> datetime | None:
    """`exp` plus the leeway; None past what datetime holds. PyJWT has checked that `exp`
    reads as a whole number, but leaves it as sent: `"9999999999"` is a string here."""
    try:
        seconds = float(exp)
    except (TypeError, ValueError):
        raise InvalidToken(
            "token's expiry (claim 'exp') is not a number", TokenRefusal.INVALID_CLAIM
        ) from None
    try:
        return datetime.fromtimestamp(seconds, UTC) + timedelta(seconds=leeway_seconds)
    except (OverflowError, OSError, ValueError):
        return None  # a year past 9999: as good as never
