"""The bodies of `/api/workflows` requests, and where each field of the message they become
came from (so that an error names it as the client sent it)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field

from baton_contracts import ids
from baton_contracts.signal_data import MAX_SIGNAL_DATA_DEPTH, STEP_RECORD_KEYS, SignalData
from baton_contracts.storable import NUL_FREE_PATTERN
from baton_contracts.workflow_api import (
    MAX_MESSAGE_CHARS,
    MESSAGE_TEXT_PATTERN,
    TARGET_STEP_MAX,
    SignalAction,
)
from baton_notifier.domain.origins import IDEMPOTENCY_KEY, Origins
from baton_notifier.entrypoints.documented import documented

InstanceId = Annotated[ids.InstanceId, Path()]

# Where each message field came from, so an error names it so (see `Origins`). An id a retry
# repeats is the body's when given there, else the Idempotency-Key's.
_INSTANCE = {"instance_id": "path.instance_id"}
IN_PATH = Origins(_INSTANCE)
ACTIVE_PAGE = Origins({"after": "query.after", "limit": "query.limit"})
PAGED = Origins({**_INSTANCE, "after_version": "query.after_version", "limit": "query.limit"})
SIGNAL_ID_IN_BODY = Origins({**_INSTANCE, "signal": "body", "command_id": "body.command_id"})
SIGNAL_ID_IN_HEADER = Origins({**_INSTANCE, "signal": "body", "command_id": IDEMPOTENCY_KEY})
_MESSAGE = {**_INSTANCE, "text": "body.text"}
MESSAGE_ID_IN_BODY = Origins({**_MESSAGE, "client_message_id": "body.client_message_id"})
MESSAGE_ID_IN_HEADER = Origins({**_MESSAGE, "client_message_id": IDEMPOTENCY_KEY})


class StartBody(BaseModel):
    """Which workflow to start."""

    model_config = ConfigDict(extra="forbid")

    workflow_id: str = Field(min_length=1, max_length=64, examples=["onboarding"])


_KEPT = ", ".join(sorted(STEP_RECORD_KEYS))


class SignalBody(BaseModel):
    """A manual signal; `command_id` (or an `Idempotency-Key` header) makes a retry count once."""

    model_config = ConfigDict(extra="forbid")

    action: SignalAction
    data: SignalData = Field(
        default_factory=dict,
        description="Merged into the current step's data: a JSON object, nested at most "
        f"{MAX_SIGNAL_DATA_DEPTH} levels deep, with no NUL character (U+0000) in any string "
        f"or key, and none of the keys the step's own record keeps ({_KEPT})",
        # The workflow service refuses such a key, naming `body.data.<key>`.
        json_schema_extra={
            "propertyNames": {
                "pattern": NUL_FREE_PATTERN,
                "not": {"enum": [*sorted(STEP_RECORD_KEYS)]},
            }
        },
    )
    shared: SignalData = Field(default_factory=dict)
    target_step: str | None = Field(
        default=None,
        max_length=TARGET_STEP_MAX,
        description="A step of the instance's workflow (`goto`); which steps it has is the "
        "workflow's, so a name it has not is refused by the workflow service (422 naming "
        "`body.target_step`)",
        **documented(min_length=1),
    )
    # No NUL, not blank: the command's `command_id` refuses either (`NonBlankText`), naming
    # `body.command_id`.
    command_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="Your id for this signal; not blank (white space alone)",
        **documented(pattern=NUL_FREE_PATTERN),
    )


class MessageBody(BaseModel):
    """A chat message; resending the same `client_message_id` returns the same answer once."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        description="At least one character that is neither white space, a control "
        "character (Unicode Cc: BEL, ESC, ...) nor an invisible format character (Unicode Cf: "
        "zero-width spaces and joiners, the byte-order mark); "
        f"no NUL (U+0000); at most {MAX_MESSAGE_CHARS} characters once outer white space is "
        "trimmed (longer is 413)",
        examples=["Hi! I'm ready, let's go."],
        # The workflow service refuses a text that breaks it, naming `body.text`.
        **documented(pattern=MESSAGE_TEXT_PATTERN),
    )
    client_message_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="Your id for this message; a retry with it asks the agent only once; "
        "not blank (white space alone)",
        # No NUL, not blank: `SendMessage.client_message_id` refuses either, naming
        # `body.client_message_id`.
        **documented(pattern=NUL_FREE_PATTERN),
    )
