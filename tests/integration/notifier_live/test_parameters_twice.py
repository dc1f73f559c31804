"""`/api/events` reads `last_seq`, `epoch` and `instance_id` once each: given twice, the last
was taken unsaid (`last_seq=1&last_seq=2` replayed from 2), now a 422 naming it."""

from __future__ import annotations

import httpx
import pytest

from .conftest import WAIT, Gateway, token


@pytest.mark.parametrize(
    ("name", "values"),
    [("last_seq", ("1", "2")), ("epoch", ("1", "2")), ("instance_id", ("i1", "i2"))],
)
async def test_a_resume_parameter_given_twice_is_refused_naming_it(
    gateway: Gateway, name: str, values: tuple[str, str]
) -> None:
    headers = {"Authorization": f"Bearer {token('alice')}"}
    params = [(name, value) for value in values]
    async with (
        httpx.AsyncClient(base_url=gateway.http_url, timeout=WAIT) as http,
        http.stream("GET", "/api/events", headers=headers, params=params) as response,
    ):
        assert response.status_code == 422, response.headers  # taken, it would never end
        await response.aread()
    assert response.json()["error"]["details"] == [
        {"field": f"query.{name}", "message": "given 2 times; send it once"}
    ]
