"""What every DAG workflow message shares: the size limits and name patterns (the types that
say them in words are in `ids`), and the literal types of run modes and statuses.

`dag_definitions`, `dag_runs` and `dag_versions` build their messages from these, and from the
reply base and subjects of `workflow_base`; `dag_api` re-exports the public ones.
"""

from __future__ import annotations

from typing import Literal

from baton_contracts.base import CallerDeadline

MAX_DEFINITION_CHARS = 512 * 1024
"""The largest workflow document accepted, in characters of its JSON or YAML source."""

MAX_DEFINITION_BYTES = 1024 * 1024 - 32 * 1024
"""The largest workflow document accepted, in bytes of its JSON as stored (UTF-8): what a
`GET /workflows/{name}` reply carries beside the rest of the answer, within the 1 MiB of NATS.
Characters are not bytes: an emoji is 4, an escaped control character 6 (`\u001b`)."""

MAX_WORKFLOW_NAME_CHARS = 128
"""The longest workflow name: routes, messages, tables and the definition validator agree."""

WORKFLOW_NAME_PATTERN = rf"^[A-Za-z0-9_-]{{1,{MAX_WORKFLOW_NAME_CHARS}}}$"
"""Seed 004: alphanumeric, `-` and `_` only."""

VERSION_ID_PATTERN = rf"^[A-Za-z0-9_-]{{1,{MAX_WORKFLOW_NAME_CHARS}}}@0*[1-9][0-9]{{0,8}}$"
"""A version id is `<name>@<version>`, unique across a user's workflows; versions start at 1."""

RUN_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
"""A run's id as routes take it (Baton makes 32 hex digits)."""

RunMode = Literal["live", "dry_run", "shadow"]
RunStatus = Literal["running", "success", "error", "timeout", "cancelled"]
StepStatus = Literal["pending", "running", "waiting", "success", "error", "skipped", "timeout"]
StepErrorCode = Literal["error", "timeout", "budget_exceeded", "cancelled"]
"""Why a step failed: seed 004's `error` status covers a budget stop and a cancellation too."""
VersionAction = Literal["create", "update", "rollback"]

WriteDeadline = CallerDeadline
"""A DAG request that writes: its `CallerDeadline` (a start, cancel, save, delete or rollback)."""
