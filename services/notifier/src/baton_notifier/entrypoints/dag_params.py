"""The DAG routes' path and query parameters, one spelling shared by every handler module.

`dag_workflows.py`, `dag_runs.py` and `dag_versions.py` all take a workflow's name, a run's
id, a version id or a page size; declaring each once keeps their patterns identical.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

from baton_contracts import ids
from baton_notifier.entrypoints.query_numbers import WholeNumber

# The contracts' types, so a value that misses its pattern is told what it should be in words.
Name = Annotated[ids.WorkflowName, Path(description="The workflow's name")]
VersionId = Annotated[ids.VersionId, Path(examples=["my-workflow@2"])]
RunId = Annotated[ids.RunId, Path()]
Limit = Annotated[WholeNumber, Query(ge=1, le=1000)]
