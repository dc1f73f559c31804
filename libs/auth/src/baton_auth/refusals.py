"""Why a bearer token is refused: a stable reason for programs, a sentence for people.

PyJWT's own words ("Not enough segments", "Invalid payload padding") name its parsing steps,
not the token's problem, and reached users as they were. Each exception PyJWT raises while
decoding is said here in the gateway's words; none of them quotes the token or the secret.
"""

from __future__ import annotations

from enum import StrEnum

import jwt
from jwt.exceptions import InvalidJTIError, InvalidSubjectError


class TokenRefusal(StrEnum):
    """Why a token was refused: stable, for clients to act on (`expired`: get a new one)."""

    MISSING = "missing"
    MALFORMED = "malformed"
    BAD_SIGNATURE = "bad_signature"
    WRONG_ALGORITHM = "wrong_algorithm"
    EXPIRED = "expired"
    NOT_YET_VALID = "not_yet_valid"
    WRONG_ISSUER = "wrong_issuer"
    WRONG_AUDIENCE = "wrong_audience"
    MISSING_CLAIM = "missing_claim"
    INVALID_CLAIM = "invalid_claim"


class InvalidToken(Exception):
    """A token that is malformed, forged, expired or names no user; the message says which,
    `reason` says it for a program."""

    def __init__(self, message: str, reason: TokenRefusal = TokenRefusal.MALFORMED) -> None:
        super().__init__(message)
        self.reason = reason


EXPIRED = "token has expired"
_UNREADABLE = "token could not be read"
_SEGMENTS = {"header": "header (its first part)", "payload": "payload (its second part)"}


def not_three_parts(token: str) -> InvalidToken:
    """A token that is not `<header>.<payload>.<signature>`: PyJWT says "Not enough segments"
    for one part or two, and a base64 error for four or more."""
    parts = token.count(".") + 1
    return InvalidToken(
        "token is not a JWT: it should be three parts separated by dots "
        f"(header.payload.signature), and it has {parts}",
        TokenRefusal.MALFORMED,
    )


def refusal(exc: jwt.PyJWTError) -> InvalidToken:
    """`exc`, raised by `jwt.decode`, in the gateway's words."""
    if isinstance(exc, jwt.ExpiredSignatureError):
        return InvalidToken(EXPIRED, TokenRefusal.EXPIRED)
    if isinstance(exc, jwt.InvalidSignatureError):
        return InvalidToken("token signature does not verify", TokenRefusal.BAD_SIGNATURE)
    if isinstance(exc, jwt.InvalidAlgorithmError):
        return InvalidToken(
            "token is not signed with HS256, the one algorithm the gateway takes (header 'alg')",
            TokenRefusal.WRONG_ALGORITHM,
        )
    if isinstance(exc, jwt.ImmatureSignatureError):
        claim = "nbf" if "nbf" in str(exc) else "iat"
        return InvalidToken(
            f"token is not valid yet (claim '{claim}' is in the future): check the clock of "
            "the machine that minted it",
            TokenRefusal.NOT_YET_VALID,
        )
    if isinstance(exc, jwt.MissingRequiredClaimError):
        return InvalidToken(f"token lacks the claim '{exc.claim}'", TokenRefusal.MISSING_CLAIM)
    if isinstance(exc, jwt.InvalidIssuerError):
        return InvalidToken(
            "token was issued for another system: its claim 'iss' must be 'baton'",
            TokenRefusal.WRONG_ISSUER,
        )
    if isinstance(exc, jwt.InvalidAudienceError):
        return InvalidToken(
            "token is meant for another audience (claim 'aud'): the gateway takes tokens "
            "without one",
            TokenRefusal.WRONG_AUDIENCE,
        )
    return _unreadable_claim(exc) or _unreadable(str(exc))


def _unreadable_claim(exc: jwt.PyJWTError) -> InvalidToken | None:
    """A claim of the wrong type: its name, and what it should be."""
    text = str(exc)
    if isinstance(exc, jwt.InvalidIssuedAtError):
        claim, should = "iat", "a number (seconds since 1970)"
    elif isinstance(exc, InvalidSubjectError):
        claim, should = "sub", "a string naming the user"
    elif isinstance(exc, InvalidJTIError):
        claim, should = "jti", "a string"
    elif isinstance(exc, jwt.DecodeError) and "(exp)" in text:
        claim, should = "exp", "a whole number (seconds since 1970)"
    elif isinstance(exc, jwt.DecodeError) and "(nbf)" in text:
        claim, should = "nbf", "a whole number (seconds since 1970)"
    else:
        return None
    return InvalidToken(f"token's claim '{claim}' must be {should}", TokenRefusal.INVALID_CLAIM)


def _unreadable(text: str) -> InvalidToken:
    """Bad base64 or JSON in a part, or a header PyJWT does not take."""
    for name, said in _SEGMENTS.items():
        if f"Invalid {name} padding" in text:
            return InvalidToken(f"{_UNREADABLE}: its {said} is not base64url")
        if f"Invalid {name} string" in text:
            return InvalidToken(f"{_UNREADABLE}: its {said} is not a JSON object")
    if "Invalid crypto padding" in text:
        return InvalidToken(f"{_UNREADABLE}: its signature (its third part) is not base64url")
    return InvalidToken(f"{_UNREADABLE}: its header is not one the gateway takes")
