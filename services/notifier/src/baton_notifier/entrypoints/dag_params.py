"""The DAG routes' path and query parameters, one spelling shared by every handler module.

`dag_workflows.py`, `dag_runs.py` and `dag_versions.py` all take a workflow's name, a run's
id, a version id or a page size; declaring each once keeps their patterns identical.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

from baton_contracts.dag_api import RUN_ID_PATTERN, VERSION_ID_PATTERN, WORKFLOW_NAME_PATTERN

Name = Annotated[str, Path(pattern=WORKFLOW_NAME_PATTERN, description="The workflow's name")]
VersionId = Annotated[str, Path(pattern=VERSION_ID_PATTERN, examples=["my-workflow@2"])]
RunId = Annotated[str, Path(pattern=RUN_ID_PATTERN)]
Limit = Annotated[int, Query(ge=1, le=1000)]
