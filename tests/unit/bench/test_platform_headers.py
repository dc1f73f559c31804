"""The load generator keeps one token per user, as a real client does."""

from __future__ import annotations

import pytest

from baton_auth import verify_token
from bench import platform as bench_platform
from bench.platform import SECRET, Platform


def test_a_users_token_is_minted_once_and_verifies(monkeypatch: pytest.MonkeyPatch) -> None:
    minted: list[str] = []
    mint = bench_platform.mint_token

    def counting(secret: str, user: str) -> str:
        minted.append(user)
        return mint(secret, user)

    monkeypatch.setattr(bench_platform, "mint_token", counting)
    bench_platform._bearer.cache_clear()
    platform = Platform(gateway_url="http://127.0.0.1:1", nats_url="nats://127.0.0.1:1")
    first = platform.headers("ann")
    assert platform.headers("ann") == first
    assert platform.headers("bob") != first
    assert minted == ["ann", "bob"]
    scheme, token = first["Authorization"].split(" ")
    assert scheme == "Bearer"
    assert verify_token(SECRET, token).user_id == "ann"
