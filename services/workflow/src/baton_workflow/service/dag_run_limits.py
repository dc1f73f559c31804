"""How many runs one user may have running at once (`workflow_max_runs_per_user`).

Every run in flight holds a drive in the workflow service, and its steps hold model calls in
the agent-runner: one user's script starting runs in a loop took every replica's and every
model's time from the other users, and ran up the bill at the pace it looped. A start past the
limit is refused `too_many` (HTTP 429) and nothing is written; a run that ends or is cancelled
makes room. Starts that arrive at the same moment are counted before either is written, so the
limit may be passed by as many starts as arrive together.
"""

from __future__ import annotations

from baton_contracts import ErrorCode, ErrorDetail, RemoteError
from baton_contracts.dag_api import StartDagRun
from baton_workflow.service.dag_ports import RunStore


async def earlier_if_full(runs: RunStore, command: StartDagRun, limit: int) -> str | None:
    """None while the user has room for another run. When it has none: the run an earlier
    start under this request id made (a retry of a start that went in is answered with its
    run, as below the limit), else `too_many`."""
    running = await runs.running_count(command.user_id)
    if running < limit:
        return None
    if command.request_id is not None:
        earlier = await runs.find_request(command.user_id, command.request_id)
        if earlier is not None:
            return earlier
    raise RemoteError.of(
        ErrorCode.TOO_MANY,
        f"you have {running} runs running, and at most {limit} may run at once; start this "
        "one when another has ended, or cancel one",
        [ErrorDetail(field="runs", message=f"{running} running of at most {limit}")],
    )
