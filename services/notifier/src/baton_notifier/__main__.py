"""`python -m baton_notifier` runs the gateway."""

import sys

from baton_notifier.entrypoints.main import main

sys.exit(main())
