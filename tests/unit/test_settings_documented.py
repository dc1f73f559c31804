"""Every environment variable a service reads is named in the docs (found by a review of the
settings: `BATON_TELEMETRY_MAX_QUEUE` was in none)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic_settings import BaseSettings

from baton_agent_runner.settings import AgentRunnerSettings
from baton_messaging.broker import MessagingSettings
from baton_notifier.settings import NotifierSettings
from baton_telemetry.settings import TelemetrySettings
from baton_workflow.settings import WorkflowSettings

ROOT = Path(__file__).parents[2]
DOCS = "\n".join(
    path.read_text()
    for path in [*ROOT.glob("docs/*.md"), ROOT / "README.md", *ROOT.glob("services/*/README.md")]
)


def variables(settings: type[BaseSettings]) -> list[str]:
    """The variables a settings class reads: its alias, or its prefix and field name."""
    prefix = str(settings.model_config.get("env_prefix", ""))
    names = []
    for field_name, field in settings.model_fields.items():
        alias = field.validation_alias
        names.append(alias if isinstance(alias, str) else f"{prefix}{field_name}".upper())
    return names


@pytest.mark.parametrize(
    "settings",
    [WorkflowSettings, AgentRunnerSettings, NotifierSettings, MessagingSettings, TelemetrySettings],
)
def test_every_variable_is_named_in_the_docs(settings: type[BaseSettings]) -> None:
    named = set(re.findall(r"(?<![A-Z0-9_])(?:BATON|OTEL)_[A-Z0-9_]+(?![A-Z0-9_])", DOCS))
    assert [name for name in variables(settings) if name not in named] == []
