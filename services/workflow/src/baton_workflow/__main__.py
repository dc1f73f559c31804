"""`python -m baton_workflow`: the settings are checked before the service is imported.

Importing the service (FastStream, SQLAlchemy, the DAG executor...) takes seconds, more on a
slow machine; a bad setting is said at once instead, with the same line `main` would print.
So this module imports only the settings (the tracing's too) and `baton_messaging.process`
(light) before `check_settings`, and the service after it.
"""

from baton_messaging.process import check_settings
from baton_telemetry.settings import TelemetrySettings
from baton_workflow.settings import WorkflowSettings


def _database_url(settings: WorkflowSettings) -> str | None:
    # SQLAlchemy parses it: imported once the settings are good, and only its URL parser.
    from baton_eventstore.database_url import database_url_problem

    return database_url_problem(settings.database_url)


check_settings("workflow", WorkflowSettings, _database_url, also_read=[TelemetrySettings])

from baton_workflow.entrypoints.main import main  # noqa: E402  (after the check: see above)

main()
