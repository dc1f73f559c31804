"""Every wire message of the platform, registered once. Services decode through `REGISTRY`."""

from __future__ import annotations

from baton_contracts.agent_api import AGENT_REQUESTS
from baton_contracts.dag_api import DAG_REQUESTS
from baton_contracts.registry import Registry
from baton_contracts.system import HEALTH_QUERIES
from baton_contracts.workflow import WORKFLOW_EVENTS
from baton_contracts.workflow_api import WORKFLOW_REQUESTS

REGISTRY = Registry(
    [
        *HEALTH_QUERIES.values(),
        *WORKFLOW_EVENTS,
        *WORKFLOW_REQUESTS,
        *DAG_REQUESTS,
        *AGENT_REQUESTS,
    ]
)
"""All message models; a new contract module adds its models here."""

STREAMS = REGISTRY.streams()
"""The JetStream streams the platform declares, derived from the stream-delivered messages."""
