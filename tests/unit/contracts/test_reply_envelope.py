"""The reply envelope written and read in one pass over the result."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel

from baton_contracts import ErrorBody, ErrorCode, ReplyError, ReplyOk, ok_reply_json, ok_result_json


class Colour(StrEnum):
    RED = "red"


class Inner(BaseModel):
    at: datetime
    colour: Colour
    ratio: float


class Result(BaseModel):
    name: str
    inner: list[Inner]
    extra: dict[str, object]
    maybe: str | None = None


RESULT = Result(
    name='é "quoted" \n',
    inner=[
        Inner(at=datetime(2026, 11, 24, 4, 5, 6, 789, tzinfo=UTC), colour=Colour.RED, ratio=0.1)
    ],
    extra={"n": 1, "nested": [1.5, None, True]},
)


def test_one_pass_writes_the_same_bytes_as_the_envelope_model() -> None:
    via_dict = ReplyOk(result=RESULT.model_dump(mode="json")).model_dump_json().encode()
    assert ok_reply_json(RESULT) == via_dict


def test_the_result_is_read_back_from_what_was_written() -> None:
    raw = ok_result_json(ok_reply_json(RESULT))
    assert raw is not None
    assert Result.model_validate_json(raw) == RESULT


def test_errors_and_replies_written_another_way_are_left_to_a_whole_decode() -> None:
    error = ReplyError(error=ErrorBody(code=ErrorCode.NOT_FOUND, message="no")).model_dump_json()
    assert ok_result_json(error.encode()) is None
    assert ok_result_json(b'{"ok": true, "result": {"name": "x"}}') is None
    assert ok_result_json(b'{"result":{"name":"x"},"ok":true}') is None
