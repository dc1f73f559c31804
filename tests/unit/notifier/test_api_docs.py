"""`/docs` and `/redoc` load nothing from outside the gateway.

FastAPI's pages loaded Swagger UI and ReDoc from cdn.jsdelivr.net, and ReDoc's fonts from
Google: a third party's script on the gateway's origin (where the console keeps its token),
and a blank page on a network without the CDN."""

from __future__ import annotations

import re

import httpx
import pytest


def loaded(page: str) -> list[str]:
    """Every address the page loads a script, a style sheet or an icon from."""
    return re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", page) + re.findall(
        r"""url:\s*["']([^"']+)["']""", page
    )


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
async def test_each_documentation_page_loads_only_the_gateways_own_files(
    client: httpx.AsyncClient, page: str
) -> None:
    response = await client.get(page)
    assert response.status_code == 200
    addresses = loaded(response.text)
    assert addresses, response.text
    for address in addresses:
        assert address.startswith("/"), (page, address)
        assert not address.startswith("//"), (page, address)
    assert "http://" not in response.text and "https://" not in response.text, response.text
    for address in addresses:
        got = await client.get(address)
        assert got.status_code == 200, address
        assert got.content, address


async def test_the_files_come_with_their_types(client: httpx.AsyncClient) -> None:
    script = await client.get("/docs/assets/swagger-ui-bundle.js")
    assert script.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    style = await client.get("/docs/assets/swagger-ui.css")
    assert style.headers["content-type"].startswith("text/css")
    missing = await client.get("/docs/assets/nothing.js")
    assert missing.status_code == 404
