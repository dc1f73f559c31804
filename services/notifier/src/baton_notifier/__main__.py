"""`python -m baton_notifier` runs the gateway; its settings are checked before it is imported.

Importing the gateway (FastAPI, uvicorn, FastStream...) takes seconds, more on a slow machine;
a bad setting is said at once instead, with the same line `main` would print.
"""

import sys

from baton_notifier.entrypoints.startup import checked_settings

checked_settings()

from baton_notifier.entrypoints.main import main  # noqa: E402  (after the check: see above)

sys.exit(main())
