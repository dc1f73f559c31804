"""Requests the workflow service answers about DAG workflows (seed 004): definitions, runs.

Every request names the `user_id` it acts for; a user sees only their own definitions and runs,
and another user's name or run id is `not_found`. Validation problems come back as an
`invalid` error whose details carry the JSON path of each problem
(`steps[2].dependsOn[0]: unknown step "reserch"`), all of them at once.

The messages live by what they act on: `dag_definitions` (stored workflows), `dag_runs` and
`dag_versions`, on the limits, patterns and types of `dag_base`. This module re-exports every
public name it held, so importers are unchanged, and keeps `DAG_REQUESTS`, the catalog's list.
"""

from __future__ import annotations

from baton_contracts.dag_base import (
    MAX_DEFINITION_BYTES,
    MAX_DEFINITION_CHARS,
    MAX_WORKFLOW_NAME_CHARS,
    RUN_ID_PATTERN,
    VERSION_ID_PATTERN,
    WORKFLOW_NAME_PATTERN,
    RunMode,
    RunStatus,
    StepErrorCode,
    StepStatus,
    VersionAction,
)
from baton_contracts.dag_definitions import (
    DagValidation,
    DagWorkflowDeleted,
    DagWorkflowDocument,
    DagWorkflowList,
    DagWorkflowSaved,
    DagWorkflowSummary,
    DeleteDagWorkflow,
    GetDagWorkflow,
    ListDagWorkflows,
    SaveDagWorkflow,
    ValidateDagWorkflow,
)
from baton_contracts.dag_runs import (
    DEFAULT_CANCEL_REASON,
    DETAIL_STEPS_LIMIT,
    CancelDagRun,
    DagAgentMessage,
    DagEstimate,
    DagHandoff,
    DagRunAccepted,
    DagRunCancel,
    DagRunChanged,
    DagRunDetail,
    DagRunList,
    DagRunSummary,
    DagStepView,
    GetDagRun,
    ListDagRuns,
    StartDagRun,
)
from baton_contracts.dag_versions import (
    DagRolledBack,
    DagVersion,
    DagVersionDiff,
    DagVersionList,
    DiffDagVersions,
    ListDagVersions,
    RollbackDagWorkflow,
)

DAG_REQUESTS = (
    ListDagWorkflows,
    GetDagWorkflow,
    SaveDagWorkflow,
    ValidateDagWorkflow,
    DeleteDagWorkflow,
    StartDagRun,
    ListDagRuns,
    GetDagRun,
    CancelDagRun,
    DagRunChanged,
    ListDagVersions,
    RollbackDagWorkflow,
    DiffDagVersions,
)

__all__ = [
    "DAG_REQUESTS",
    "DEFAULT_CANCEL_REASON",
    "DETAIL_STEPS_LIMIT",
    "MAX_DEFINITION_BYTES",
    "MAX_DEFINITION_CHARS",
    "MAX_WORKFLOW_NAME_CHARS",
    "RUN_ID_PATTERN",
    "VERSION_ID_PATTERN",
    "WORKFLOW_NAME_PATTERN",
    "CancelDagRun",
    "DagAgentMessage",
    "DagEstimate",
    "DagHandoff",
    "DagRolledBack",
    "DagRunAccepted",
    "DagRunCancel",
    "DagRunChanged",
    "DagRunDetail",
    "DagRunList",
    "DagRunSummary",
    "DagStepView",
    "DagValidation",
    "DagVersion",
    "DagVersionDiff",
    "DagVersionList",
    "DagWorkflowDeleted",
    "DagWorkflowDocument",
    "DagWorkflowList",
    "DagWorkflowSaved",
    "DagWorkflowSummary",
    "DeleteDagWorkflow",
    "DiffDagVersions",
    "GetDagRun",
    "GetDagWorkflow",
    "ListDagRuns",
    "ListDagVersions",
    "ListDagWorkflows",
    "RollbackDagWorkflow",
    "RunMode",
    "RunStatus",
    "SaveDagWorkflow",
    "StartDagRun",
    "StepErrorCode",
    "StepStatus",
    "ValidateDagWorkflow",
    "VersionAction",
]
