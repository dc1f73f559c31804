"""Bearer tokens for Baton: `mint_token` for local use, `verify_token` at the gateway."""

from baton_auth.refusals import InvalidToken, TokenRefusal
from baton_auth.tokens import (
    MAX_USER_ID_CHARS,
    USER_ID_PATTERN,
    USER_ID_RULE,
    Identity,
    check_secret,
    mint_token,
    project_id_problem,
    user_id_problem,
    verify_token,
)

__all__ = [
    "MAX_USER_ID_CHARS",
    "USER_ID_PATTERN",
    "USER_ID_RULE",
    "Identity",
    "InvalidToken",
    "TokenRefusal",
    "check_secret",
    "mint_token",
    "project_id_problem",
    "user_id_problem",
    "verify_token",
]
