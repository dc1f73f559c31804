"""A path or query value that misses its pattern is told what it should be in words.

The gateway once said `string should match pattern '^[A-Za-z0-9_-]+$'` for an instance id, and
looked the words for the others up by the regex's text, which two ids share.
"""

from __future__ import annotations

import httpx
import pytest

from baton_notifier.bootstrap import Notifier


def refusal(response: httpx.Response) -> tuple[str, str]:
    assert response.status_code == 422, response.text
    [detail] = response.json()["error"]["details"]
    return detail["field"], detail["message"]


@pytest.mark.parametrize(
    ("url", "field", "words"),
    [
        (
            "/api/workflows/a.b/progress",
            "path.instance_id",
            "an instance id is 1 to 64 letters, digits, '-' or '_'",
        ),
        (
            f"/api/workflows/{'i' * 65}/events",
            "path.instance_id",
            "an instance id is 1 to 64 letters, digits, '-' or '_'",
        ),
        ("/workflow-runs/a.b", "path.run_id", "a run id is 1 to 64 letters, digits, '-' or '_'"),
        (
            "/workflows/a.b/versions",
            "path.name",
            "a workflow name is 1 to 128 letters, digits, '-' or '_'",
        ),
        (
            "/workflow-runs?workflow=a.b",
            "query.workflow",
            "a workflow name is 1 to 128 letters, digits, '-' or '_'",
        ),
        (
            "/workflow-versions/w@1/diff/w@0",
            "path.to_id",
            "a version id is <name>@<version>, the version a whole number from 1 to "
            "999,999,999 (my-workflow@2)",
        ),
    ],
)
async def test_an_id_that_misses_its_pattern_is_told_what_it_should_be(
    client: httpx.AsyncClient, auth: dict[str, str], url: str, field: str, words: str
) -> None:
    assert refusal(await client.get(url, headers=auth)) == (field, words)


FITTING = {"instance_id": "i1", "name": "w", "run_id": "r1", "from_id": "w@1", "to_id": "w@2"}
"""A value that fits each path parameter, so a request misses only the one tried."""


async def test_no_route_parameter_quotes_its_regex(
    notifier: Notifier, client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    spec = notifier.app.openapi()
    patterned = [
        (method, path, parameter["in"], parameter["name"])
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        for parameter in operation.get("parameters", [])
        if "pattern" in str(parameter["schema"])
    ]
    assert len(patterned) >= 10  # the check below sees something
    for method, path, where, name in patterned:
        url = path.format(**{**FITTING, name: "a.b"} if where == "path" else FITTING)
        params = {name: "a.b"} if where == "query" else None
        missed = [(name, "clé".encode())] if where == "header" else []  # Idempotency-Key
        headers = [*auth.items(), *missed]
        response = await client.request(method, url, params=params, json={}, headers=headers)
        assert response.status_code == 422, (method, path, name, response.text)
        details = response.json()["error"]["details"]
        [message] = [d["message"] for d in details if d["field"] == f"{where}.{name.lower()}"]
        assert "pattern" not in message and "^" not in message, (method, path, name, message)
