"""What `python -m baton_notifier` reads and checks first, before the gateway is imported.

Importing the gateway (FastAPI, uvicorn, FastStream...) takes seconds, more on a slow machine;
a bad setting is said at once instead. Keep this module light: settings and
`baton_messaging`'s light modules only.
"""

from __future__ import annotations

import os
import sys

from baton_messaging.lifeline import lifeline_fd
from baton_messaging.setting_problems import settled
from baton_messaging.settings import MessagingSettings
from baton_notifier.settings import NotifierSettings, load_settings

NAME = "baton-notifier"


def checked_settings() -> tuple[NotifierSettings, int | None]:
    """The gateway's settings and its lifeline (`BATON_LIFELINE_FD`), or exit with status 2
    and one line naming each bad variable."""
    try:
        settings = load_settings()
        lifeline = lifeline_fd(os.environ)
    except ValueError as exc:  # a `SettingsError`, or a bad `BATON_LIFELINE_FD`
        print(f"{NAME}: {exc}", file=sys.stderr)
        sys.exit(2)
    # The broker's own settings (`BATON_CONNECT_TIMEOUT_SECONDS`) are read when it is built:
    # checked here, so a bad one is one line too, not a traceback from inside the start.
    settled(NAME, MessagingSettings)
    return settings, lifeline
