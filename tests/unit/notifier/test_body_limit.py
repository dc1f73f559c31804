from collections.abc import AsyncIterator

import httpx

MAX_BODY = 64  # the conftest's max_body_bytes


def _json_of_size(size: int) -> bytes:
    prefix, suffix = b'{"thing_id": "', b'"}'
    return prefix + b"x" * (size - len(prefix) - len(suffix)) + suffix


async def test_a_body_at_the_limit_is_accepted(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    headers = {**auth, "Content-Type": "application/json"}
    response = await client.post("/api/things", content=_json_of_size(MAX_BODY), headers=headers)
    assert response.status_code == 200


async def test_content_length_over_the_limit_is_413(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    headers = {**auth, "Content-Type": "application/json"}
    body = _json_of_size(MAX_BODY + 1)
    response = await client.post("/api/things", content=body, headers=headers)
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "too_large"
    assert str(MAX_BODY) in error["message"]
    assert error["details"] == [
        {"field": "body", "message": "is larger than the limit of 64 bytes"}
    ]


async def test_a_chunked_body_growing_past_the_limit_is_413_before_it_is_all_read(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    sent = 0

    async def stream() -> AsyncIterator[bytes]:
        nonlocal sent
        for _ in range(100):
            sent += 1
            yield b"x" * 16

    headers = {**auth, "Content-Type": "application/json"}
    response = await client.post("/api/things", content=stream(), headers=headers)
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
    assert [d["field"] for d in response.json()["error"]["details"]] == ["body"]
    # 64 bytes allowed, so the fifth 16-byte chunk trips it; the other 95 are never pulled.
    assert sent == 5


async def test_the_limit_applies_to_routes_without_auth_too(client: httpx.AsyncClient) -> None:
    response = await client.post("/health", content=b"x" * (MAX_BODY + 1))
    assert response.status_code == 413
