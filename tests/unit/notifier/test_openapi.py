"""The OpenAPI document says every status and body a route answers with (found by fuzzing it
with schemathesis against `/openapi.json`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

import httpx
import pytest
from pydantic import ValidationError

from baton_contracts.dag_api import DagRolledBack, RollbackDagWorkflow
from baton_contracts.dag_base import WORKFLOW_NAME_PATTERN
from baton_contracts.storable import NUL_FREE_PATTERN
from baton_contracts.workflow_api import MESSAGE_TEXT_PATTERN
from baton_notifier.bootstrap import Notifier
from baton_notifier.domain.live import BadLiveRequest, parse_instance_id
from baton_notifier.domain.media import YAML_TYPES
from baton_notifier.domain.stream_position import parse_epoch, parse_position
from baton_notifier.entrypoints.dag_versions import ROLLBACK_TO_PATTERN, RollbackBody
from baton_notifier.entrypoints.live_routes import LiveDeps, install_live
from baton_notifier.service.live import LiveEvents

from .conftest import SECRET, FakeRequester


@pytest.fixture
def spec(notifier: Notifier) -> dict[str, Any]:
    # The live routes without a feed: only their documentation is read here.
    install_live(notifier.app, LiveDeps(SECRET, cast(LiveEvents, None), keepalive_seconds=1))
    return notifier.app.openapi()


def statuses(spec: dict[str, Any], method: str, path: str) -> set[str]:
    return set(spec["paths"][path][method]["responses"])


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("post", "/api/workflows", "200"),  # your active instance, already started
        ("post", "/workflows", "200"),  # a document equal to the latest version
        ("post", "/workflows", "409"),  # overtaken by other saves of the same workflow
        ("delete", "/workflows/{name}", "409"),
        ("post", "/workflows/{name}/rollback", "409"),
        ("post", "/workflows/{name}/run", "409"),  # an Idempotency-Key used for another start
        ("post", "/workflows/{name}/run", "429"),  # the user's running runs at the limit
        ("post", "/api/workflows/{instance_id}/messages", "500"),  # an agent with no profile
    ],
)
def test_a_status_a_route_answers_with_is_documented(
    spec: dict[str, Any], method: str, path: str, status: str
) -> None:
    assert status in statuses(spec, method, path)


def test_every_route_documents_the_body_limit(spec: dict[str, Any]) -> None:
    # The limit is checked before any route, by Content-Length: a GET with a body gets it too.
    missing = [
        f"{method.upper()} {path}"
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if "413" not in operation["responses"]
    ]
    assert missing == []


def test_every_route_documents_the_refusal_of_a_compressed_body(spec: dict[str, Any]) -> None:
    # Checked before any route, like the limit.
    missing = [
        f"{method.upper()} {path}"
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if "415" not in operation["responses"]
    ]
    assert missing == []


def test_saving_a_workflow_requires_a_document(spec: dict[str, Any]) -> None:
    assert spec["paths"]["/workflows"]["post"]["requestBody"]["required"] is True
    assert not spec["paths"]["/workflows/{name}/validate"]["post"]["requestBody"].get("required")


def test_live_events_are_documented_one_event_at_a_time(spec: dict[str, Any]) -> None:
    # `{"type": "string"}` for the whole stream read, to a client of OpenAPI 3.1, as the
    # schema of each event, which none met.
    [(media_type, stream)] = spec["paths"]["/api/events"]["get"]["responses"]["200"][
        "content"
    ].items()
    assert media_type == "text/event-stream"
    assert "schema" not in stream
    event = stream["itemSchema"]
    assert event["type"] == "object"
    assert set(event["properties"]) == {"data", "event", "id", "retry"}
    assert event["properties"]["data"]["contentMediaType"] == "application/json"


def test_live_events_refusals_are_documented_as_json(spec: dict[str, Any]) -> None:
    responses = spec["paths"]["/api/events"]["get"]["responses"]
    assert list(responses["200"]["content"]) == ["text/event-stream"]
    for status in ("401", "422"):
        assert list(responses[status]["content"]) == ["application/json"], status


def parameter_schema(spec: dict[str, Any], path: str, name: str) -> dict[str, Any]:
    [parameter] = [p for p in spec["paths"][path]["get"]["parameters"] if p["name"] == name]
    return cast(dict[str, Any], parameter["schema"])


@pytest.mark.parametrize(
    ("name", "parse"),
    [
        ("last_seq", parse_position),
        ("last-event-id", parse_position),
        ("epoch", parse_epoch),
        ("instance_id", parse_instance_id),
    ],
)
def test_live_events_parameters_document_the_form_their_parsers_take(
    spec: dict[str, Any], name: str, parse: Callable[[str], object]
) -> None:
    # Schemathesis found a `Last-Event-ID: null` the document allowed refused 422: a client
    # generated from the document learned nothing of the form. The pattern says what the
    # parser takes, no more and no less.
    pattern = re.compile(parameter_schema(spec, "/api/events", name)["pattern"])
    samples = [
        "", "0", "7", "42", "9" * 19, "9" * 20, "1-2", "1764000000000000-17", "-1", "1-",
        "-", "1--2", "1-2-3", "null", "a", "abc-def", "٣", "1.5", " 1", "1 ", "x_y-z",
        "0" * 64, "A" * 65, "Z-" + "1" * 19, "1" * 19 + "-" + "1" * 19,
    ]  # fmt: skip
    for sample in samples:
        try:
            parse(sample)
            taken = True
        except BadLiveRequest:
            taken = False
        assert bool(pattern.search(sample)) is taken, sample


def test_a_message_and_a_signal_body_document_what_the_workflow_service_refuses(
    spec: dict[str, Any],
) -> None:
    schemas = spec["components"]["schemas"]
    text = schemas["MessageBody"]["properties"]["text"]
    assert text["pattern"] == MESSAGE_TEXT_PATTERN  # held to `checked_text` by a workflow test
    assert re.search(text["pattern"], " \t\n") is None  # blank: refused (`body.text`)
    assert re.search(text["pattern"], " \u200b ") is None  # only a zero-width space: blank
    assert re.search(text["pattern"], "hi\u0000") is None
    assert re.search(text["pattern"], " hi ")
    assert "format character (Unicode Cf" in text["description"]
    # `str | None`: the constraint sits beside `anyOf`, where it applies to the string only.
    step = schemas["SignalBody"]["properties"]["target_step"]
    assert step["minLength"] == 1
    assert {"type": "string", "maxLength": 64} in step["anyOf"]
    # Schemathesis sent a step the instance's workflow has not: a state check, in words.
    assert "422 naming `body.target_step`" in step["description"]


def test_a_signal_and_a_message_body_document_that_no_store_keeps_a_nul(
    spec: dict[str, Any],
) -> None:
    # Schemathesis sent a signal whose data held U+0000, which the document allowed and the
    # workflow service refuses (`body.data.<path>`): the document now says so.
    schemas = spec["components"]["schemas"]
    signal = schemas["SignalBody"]["properties"]
    for name in ("data", "shared"):
        assert signal[name]["propertyNames"]["pattern"] == NUL_FREE_PATTERN
        assert signal[name]["additionalProperties"] == {"$ref": "#/components/schemas/SignalValue"}
    assert {"type": "string", "pattern": NUL_FREE_PATTERN} in schemas["SignalValue"]["anyOf"]
    ids = [signal["command_id"], schemas["MessageBody"]["properties"]["client_message_id"]]
    for field in ids:
        pattern = field["pattern"]
        assert re.search(pattern, "id-1") and re.search(pattern, "id\u00001") is None


@pytest.mark.parametrize("path", ["/workflows", "/workflows/{name}/validate"])
def test_a_workflow_document_is_an_object_with_a_name_and_steps_as_json_and_as_yaml(
    spec: dict[str, Any], path: str
) -> None:
    # Schemathesis sent the YAML body `''` (a string), which the document allowed as
    # `{"type": "string"}` and the workflow service refused: a document is a mapping.
    content = spec["paths"][path]["post"]["requestBody"]["content"]
    assert set(content) == {"application/json", *YAML_TYPES}
    for media_type, body in content.items():
        schema = body["schema"]
        assert schema["type"] == "object", media_type
        assert schema["required"] == ["name", "steps"]
        assert schema["properties"]["name"]["pattern"] == WORKFLOW_NAME_PATTERN
        assert schema["properties"]["steps"]["minItems"] == 1


ROLLBACK_TARGETS = [
    "1", "2", "007", "999999999", "0", "00", "1000000000", "-1", "1.5", "٣", "2\n", "",
    "w@1", "my_workflow-2@12", "w@0", "@1", "w@", "w@-1", "a.b@1", "w@1\n", "w@@1",
    "a" * 40 + "@1", "other@3",
]  # fmt: skip
"""Short enough for the test gateway's 64-byte body limit; the name's length is below."""


@pytest.mark.parametrize("target", ROLLBACK_TARGETS)
async def test_a_rollback_target_is_forwarded_exactly_when_it_meets_its_pattern(
    spec: dict[str, Any],
    client: httpx.AsyncClient,
    auth: dict[str, str],
    requester: FakeRequester,
    target: str,
) -> None:
    # The document said any string; the gateway takes `<name>@<version>` or a bare version.
    field = spec["components"]["schemas"]["RollbackBody"]["properties"]["version_id"]
    assert field["pattern"] == ROLLBACK_TO_PATTERN
    pattern = field["pattern"].removesuffix("$") + r"\Z"  # `$` as ECMA-262 reads it
    requester.answer = lambda message: DagRolledBack(
        name="w", version=9, version_id="w@9", rolled_back_to="w@1"
    )
    url = "/workflows/w/rollback"
    response = await client.post(url, json={"version_id": target}, headers=auth)
    if re.search(pattern, target):
        assert response.status_code == 200, response.text
        [sent] = requester.sent
        assert isinstance(sent, RollbackDagWorkflow)
        assert sent.version_id == (target if "@" in target else f"w@{target}")
    else:
        assert response.status_code == 422, response.text
        assert response.json()["error"]["details"][0]["field"] == "body.version_id"
        assert requester.sent == []


@pytest.mark.parametrize(("length", "taken"), [(128, True), (129, False)])
def test_a_rollback_target_names_a_workflow_of_at_most_128_characters(
    length: int, taken: bool
) -> None:
    target = "a" * length + "@1"
    assert (re.search(ROLLBACK_TO_PATTERN, target) is not None) is taken
    try:
        RollbackBody(version_id=target)
        RollbackDagWorkflow(user_id="u", name="a" * min(length, 128), version_id=target)
    except ValidationError:
        assert not taken
    else:
        assert taken


@pytest.mark.parametrize("target", ["w@\u00b2", "\u00b2", "w@\u0663"])
def test_a_rollback_target_of_other_digits_is_refused_in_words(target: str) -> None:
    # "²" passed `isdigit` and `int` refused it: the caller read "invalid literal for int()".
    with pytest.raises(ValidationError) as refused:
        RollbackBody(version_id=target)
    [error] = refused.value.errors()
    assert error["msg"].startswith("a version id is <name>@<version>"), error["msg"]


def test_a_rollback_target_of_another_workflow_is_described(spec: dict[str, Any]) -> None:
    # Which workflow a version belongs to is the path's: no schema of the body can say it.
    field = spec["components"]["schemas"]["RollbackBody"]["properties"]["version_id"]
    assert "another workflow than the path's `{name}`" in field["description"]


async def test_a_run_variable_is_documented_and_refused_with_no_nul(
    spec: dict[str, Any], client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    # Schemathesis sent a run variable holding U+0000, which the document allowed.
    variables = spec["components"]["schemas"]["RunBody"]["properties"]["variables"]
    pattern = variables["additionalProperties"]["pattern"]
    assert pattern == NUL_FREE_PATTERN
    assert re.search(pattern, "AI agents") and re.search(pattern, "x\u0000") is None
    # Schemathesis also named a variable the workflow does not declare: a state, in words.
    assert "422 naming `body.variables.<name>`" in variables["description"]
    body = {"variables": {"v": "x\u0000"}}
    response = await client.post("/workflows/w/run", json=body, headers=auth)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["details"][0]["field"] == "body.variables.v"


async def test_a_cancel_reason_with_a_nul_is_documented_and_refused_naming_it(
    spec: dict[str, Any], client: httpx.AsyncClient, auth: dict[str, str], requester: FakeRequester
) -> None:
    # It was forwarded, and the workflow service failed to store it: a 500.
    reason = spec["components"]["schemas"]["CancelBody"]["properties"]["reason"]
    assert reason["pattern"] == NUL_FREE_PATTERN
    url = "/workflow-runs/r1/cancel"
    response = await client.post(url, json={"reason": "wrong\u0000"}, headers=auth)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["details"][0]["field"] == "body.reason"
    assert requester.sent == []
