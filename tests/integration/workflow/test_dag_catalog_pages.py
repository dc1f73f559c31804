"""The lists and reads of saved DAG workflows fit a NATS reply (1 MiB) however long the
documents' texts are within their limits (524,288 characters a document), through the gateway
on a real NATS: `GET /workflows` comes a page at a time (about 512 KiB, `next_after`).

Three workflows with a 400,000 character description made `GET /workflows` a reply of
1,200,384 bytes: 500, for every later listing of the user's workflows.
"""

from __future__ import annotations

import json
from typing import Any

from baton_workflow.domain import dag_versions as dv

NATS_CARRIES = 1024 * 1024
LONG = 400_000


def auth(http: Any, user: str) -> dict[str, str]:
    return http.token(user)  # type: ignore[no-any-return]


def document(name: str, description: str = "") -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "steps": [{"id": "wait", "type": "delay", "delay": "1h"}],
    }


async def saved(http: Any, user: str, doc: dict[str, Any]) -> None:
    body = json.dumps(doc, ensure_ascii=False).encode()
    reply = await http.post(
        "/workflows", content=body, headers={**auth(http, user), "content-type": "application/json"}
    )
    assert reply.status_code in (200, 201), reply.text[:300]


async def every_page(http: Any, user: str, path: str, key: str, limit: int = 1000) -> list[Any]:
    """The items of every page, following `next_after`; each page fits what NATS carries."""
    items: list[Any] = []
    after = None
    for _ in range(100):
        query = f"?limit={limit}" + (f"&after={after}" if after else "")
        page = await http.get(f"{path}{query}", headers=auth(http, user))
        assert page.status_code == 200, page.text[:300]
        assert len(page.content) < NATS_CARRIES // 2 + 8192
        items += page.json()[key]
        after = page.json()["next_after"]
        if after is None:
            return items
    raise AssertionError("the pages did not end")


async def test_workflows_with_long_descriptions_are_listed_a_page_at_a_time(
    gateway: Any,
) -> None:
    for n in range(3):
        await saved(gateway, "rex", document(f"w{n}", chr(ord("a") + n) * LONG))
    await saved(gateway, "rex", document("w3", "short"))
    listed = await every_page(gateway, "rex", "/workflows", "workflows")
    assert [w["name"] for w in listed] == ["w0", "w1", "w2", "w3"]
    assert [len(w["description"]) for w in listed] == [LONG, LONG, LONG, 5]  # whole
    # The limit holds, and says so when more follow.
    first = (await gateway.get("/workflows?limit=1", headers=auth(gateway, "rex"))).json()
    assert [w["name"] for w in first["workflows"]] == ["w0"]
    assert first["next_after"] == "w0"
    rest = await gateway.get("/workflows?after=w2", headers=auth(gateway, "rex"))
    assert rest.json() == {"workflows": [listed[3]], "next_after": None}


async def test_a_workflow_alone_over_a_page_has_its_description_cut(gateway: Any) -> None:
    """300,000 "é" are 600 KB as JSON: over a page alone (and twice over NATS in `GET`)."""
    await saved(gateway, "eve", document("big", "é" * 300_000))
    await saved(gateway, "eve", document("small", "short"))
    big, small = await every_page(gateway, "eve", "/workflows", "workflows")
    assert big["description"].startswith("é" * 1000)
    assert "more characters cut" in big["description"]
    assert small["description"] == "short"


async def test_a_page_goes_on_after_any_name_and_refuses_a_malformed_one(gateway: Any) -> None:
    for name in ("a", "c"):
        await saved(gateway, "ida", document(name))
    # A name no workflow has (one deleted meanwhile) still says where the list goes on.
    after_b = (await gateway.get("/workflows?after=b", headers=auth(gateway, "ida"))).json()
    assert [w["name"] for w in after_b["workflows"]] == ["c"]
    for query, field in (("after=a.b", "query.after"), ("limit=0", "query.limit")):
        reply = await gateway.get(f"/workflows?{query}", headers=auth(gateway, "ida"))
        assert reply.status_code == 422, reply.text
        assert [d["field"] for d in reply.json()["error"]["details"]] == [field]


async def test_a_long_description_is_read_whole_in_the_document(gateway: Any) -> None:
    """`GET /workflows/{name}` carried the description twice, beside the document and in it:
    300,000 "é" (600 KB as JSON, a document well within its limits) made it 1.2 MB: 500."""
    await saved(gateway, "joe", document("big", "é" * 300_000))
    reply = await gateway.get("/workflows/big", headers=auth(gateway, "joe"))
    assert reply.status_code == 200, reply.text[:300]
    read = reply.json()
    assert read["definition"] == document("big", "é" * 300_000)  # whole, to edit and save
    assert read["description"].startswith("é" * 1000)
    assert "more characters cut" in read["description"]
    assert "definition.description" in read["description"]
    assert len(reply.content) < NATS_CARRIES
    # A description that fits is told whole, as before.
    await saved(gateway, "joe", document("mid", "d" * 100_000))
    mid = (await gateway.get("/workflows/mid", headers=auth(gateway, "joe"))).json()
    assert mid["description"] == "d" * 100_000


async def test_a_diff_of_two_large_versions_is_shortened_saying_so(gateway: Any) -> None:
    """Two versions whose 300,000 character descriptions differ: their diff holds both, 1.2 MB
    as JSON, over what NATS carries: 500. It is now cut to about 512 KiB, saying where."""
    await saved(gateway, "amy", document("big", "é" * 300_000))
    await saved(gateway, "amy", document("big", "è" * 300_000))
    reply = await gateway.get("/workflow-versions/big@1/diff/big@2", headers=auth(gateway, "amy"))
    assert reply.status_code == 200, reply.text[:300]
    assert len(reply.content) < NATS_CARRIES // 2 + 8192
    diff = reply.json()
    assert diff["shortened"] is True
    lines = diff["diff"].splitlines()
    assert lines[:2] == ["--- big@1", "+++ big@2"]
    removed = [line for line in lines if line.startswith('-  "description": "éé')]
    added = [line for line in lines if line.startswith('+  "description": "èè')]
    assert len(removed) == len(added) == 1
    assert "more characters cut" in removed[0] and "more characters cut" in added[0]
    # A diff that fits is whole, and says nothing of being shortened.
    await saved(gateway, "amy", document("mid", "x" * 100_000))
    await saved(gateway, "amy", document("mid", "y" * 100_000))
    whole = await gateway.get("/workflow-versions/mid@1/diff/mid@2", headers=auth(gateway, "amy"))
    assert whole.status_code == 200, whole.text[:300]
    assert whole.json()["shortened"] is False
    assert f'-  "description": "{"x" * 100_000}",' in whole.json()["diff"].splitlines()


async def test_a_long_history_is_listed_a_page_at_a_time(gateway: Any, workflow: Any) -> None:
    """A workflow has no bound on its number of versions: 3,000 rollbacks of one with a name of
    128 characters (each listed version names the one it rolled back to) made
    `GET /workflows/{name}/versions` over 1.1 MB: 500. The versions are written to the store
    as those rollbacks write them, 3,000 requests being slow to send."""
    name = "v" * 128
    await saved(gateway, "una", document(name))
    store = workflow.catalog.store
    history = await store.history("una", name)
    first = history.versions[0]
    events = [
        dv.VersionSaved(
            name=name,
            version=n,
            document=first.document,
            action="rollback",
            at=first.created_at,
            rolled_back_to=first.version_id,
        )
        for n in range(2, 3002)
    ]
    await store.append("una", history, events)
    path = f"/workflows/{name}/versions"
    listed = await every_page(gateway, "una", path, "versions")
    assert [v["version"] for v in listed] == list(range(3001, 0, -1))  # each once, in order
    assert listed[-1]["action"] == "create"
    # The limit holds, says so when more follow, and a page goes on from a version id.
    page = (await gateway.get(f"{path}?limit=2", headers=auth(gateway, "una"))).json()
    assert [v["version"] for v in page["versions"]] == [3001, 3000]
    assert page["next_after"] == f"{name}@3000"
    rest = await gateway.get(f"{path}?after={name}@2", headers=auth(gateway, "una"))
    assert rest.json() == {"name": name, "versions": [listed[-1]], "next_after": None}


async def test_a_version_of_another_workflow_is_no_place_to_go_on_from(gateway: Any) -> None:
    await saved(gateway, "val", document("a"))
    await saved(gateway, "val", document("a", "two"))
    await saved(gateway, "val", document("b"))
    for after in ("b@1", "a@3", "a@0", "nope"):
        reply = await gateway.get(
            f"/workflows/a/versions?after={after}", headers=auth(gateway, "val")
        )
        assert reply.status_code == 422, reply.text
        assert [d["field"] for d in reply.json()["error"]["details"]] == ["query.after"]
    whole = await gateway.get("/workflows/a/versions?after=a@2", headers=auth(gateway, "val"))
    assert [v["version"] for v in whole.json()["versions"]] == [1]


async def test_a_document_too_large_to_read_back_is_refused_when_saved(gateway: Any) -> None:
    """524,288 characters as JSON and a 985 KB body, within both limits, but 50,500 `\\e` (6
    bytes each as JSON) and emoji (4 bytes each) stored 1.19 MB: saved (201), and every
    `GET /workflows/{name}` after answered 500. It is refused at once, nothing stored."""
    escapes = 50_500
    emoji = 524_288 - 6 * escapes - 200
    escaped, smiles = "\\e" * escapes, "😀" * emoji
    source = (
        f'name: huge\ndescription: "{escaped}"\nvariables:\n  v: "{smiles}"\n'
        "steps:\n- id: wait\n  type: delay\n  delay: 1h\n"
    )
    headers = {**auth(gateway, "zed"), "content-type": "application/yaml"}
    reply = await gateway.post("/workflows", content=source.encode(), headers=headers)
    assert reply.status_code == 413, reply.text[:300]
    error = reply.json()["error"]
    assert [d["field"] for d in error["details"]] == ["body"]
    assert "bytes as JSON" in error["message"] and "shorten" in error["message"]
    listed = await gateway.get("/workflows", headers=auth(gateway, "zed"))
    assert listed.json()["workflows"] == []
    # 500,000 "é" (1 MB as JSON) is stored and read back whole.
    await saved(gateway, "zed", document("large", "é" * 500_000))
    read = await gateway.get("/workflows/large", headers=auth(gateway, "zed"))
    assert read.status_code == 200, read.text[:300]
    assert read.json()["definition"]["description"] == "é" * 500_000
