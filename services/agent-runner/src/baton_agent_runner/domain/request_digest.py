"""What an idempotency key was asked: a digest of the parts of a request that decide its answer.

The reply and task logs keep it with the answer, so a key sent again with another question gets
`conflict`, not the first question's answer. It leaves out what an honest retry changes: the
deadline, the time and budget left, and for a turn the history and the workflow's pre-check
(another message may have been recorded in between).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from baton_contracts.agent_api import RunAgent, RunTask


def _digest(kind: str, parts: Mapping[str, object]) -> str:
    named = [kind, dict(parts)]
    text = json.dumps(named, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def turn_digest(cmd: RunAgent) -> str:
    """A turn's question: the agent, the step and the message (outer whitespace aside, as the
    workflow compares a retried text)."""
    parts = {"agent": cmd.agent, "step": cmd.current_step, "message": cmd.message.strip()}
    return _digest("turn", parts)


def task_digest(cmd: RunTask) -> str:
    """A DAG step's question: the agent, the run and step, what it reads and which model."""
    parts = {
        "agent": cmd.agent,
        "run_id": cmd.run_id,
        "step_id": cmd.step_id,
        "prompt": cmd.prompt,
        "context": cmd.context,
        "context_from": cmd.context_from,
        "model": cmd.model,
        "provider": cmd.provider,
        "permission_mode": cmd.permission_mode,
    }
    return _digest("task", parts)
