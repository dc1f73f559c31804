"""AsyncAPI documents are written per service from FastStream apps and brokers."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import yaml

from baton_messaging.asyncapi import AsyncAPIError, load_target, main, write_documents

APP_MODULE = '''
from typing import ClassVar

from faststream import FastStream
from pydantic import BaseModel

from baton_contracts import Kind, Query, Subject
from baton_contracts.base import ReplyModel
from baton_messaging import MessagingSettings, build_broker, respond


class Count(BaseModel):
    total: int


class CountThings(Query):
    """How many things a user has."""

    type: str = "demo.count_things"
    subject: ClassVar[Subject] = Subject(owner="workflow", kind=Kind.QUERY, name="count_things")
    reply_model: ClassVar[ReplyModel] = Count

    user_id: str


async def count_things(query: CountThings) -> Count:
    return Count(total=0)


broker = build_broker(MessagingSettings(), "demo")
respond(broker, CountThings, count_things, queue="demo")
app = FastStream(broker)
other = build_broker(MessagingSettings(), "other")
'''


@pytest.fixture
def demo_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"demo_app_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(APP_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_cli_writes_json_and_yaml_per_service(demo_module: str, tmp_path: Path) -> None:
    out = tmp_path / "asyncapi"
    assert main([str(out), f"{demo_module}:app", f"{demo_module}:other"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "demo.json",
        "demo.yaml",
        "other.json",
        "other.yaml",
    ]
    doc = json.loads((out / "demo.json").read_text())
    assert doc == yaml.safe_load((out / "demo.yaml").read_text())
    assert doc["asyncapi"].startswith("3.")
    addresses = [channel["address"] for channel in doc["channels"].values()]
    assert addresses == ["workflow.query.count_things"]
    request_schema = doc["components"]["schemas"]["CountThings"]
    assert request_schema["required"] == ["user_id"]


def test_bad_targets_are_clear_errors(demo_module: str, tmp_path: Path) -> None:
    with pytest.raises(AsyncAPIError, match="has no 'nothing'"):
        load_target(f"{demo_module}:nothing")
    with pytest.raises(AsyncAPIError, match="package.module:attribute"):
        load_target("no_colon_here")
    with pytest.raises(AsyncAPIError, match="neither a FastStream app nor a broker"):
        write_documents(tmp_path, [load_target(f"{demo_module}:Count")])
    assert main([str(tmp_path), f"{demo_module}:nothing"]) == 2
