"""Bearer tokens for Baton: `mint_token` for local use, `verify_token` at the gateway."""

from baton_auth.tokens import Identity, InvalidToken, check_secret, mint_token, verify_token

__all__ = ["Identity", "InvalidToken", "check_secret", "mint_token", "verify_token"]
