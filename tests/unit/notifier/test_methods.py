"""A method a path does not take is a 405 whose `Allow` names every method the path takes."""

from __future__ import annotations

import httpx
import pytest


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        # Starlette named only the first route whose path matched.
        ("OPTIONS", "/workflows", "GET, POST"),
        ("PUT", "/workflows/draft", "DELETE, GET"),
        ("OPTIONS", "/api/workflows/i1/messages", "GET, POST"),
        ("DELETE", "/health", "GET"),
        ("POST", "/console/console.js", "GET, HEAD"),
    ],
)
async def test_a_method_the_path_does_not_take_is_405_allowing_every_one_it_does(
    client: httpx.AsyncClient, auth: dict[str, str], method: str, path: str, allowed: str
) -> None:
    response = await client.request(method, path, headers=auth)
    assert response.status_code == 405, response.text
    assert response.headers["Allow"] == allowed
    assert response.json()["error"]["code"] == "method_not_allowed"
