"""A service process's heap: start-up objects frozen, collections less often than CPython's."""

from __future__ import annotations

import json
import subprocess
import sys

from baton_messaging.process import GC_THRESHOLDS

PROBE = """
import gc, json
from baton_messaging.process import tune_garbage_collector
before = gc.get_threshold()
kept = [[n] for n in range(1000)]  # long-lived containers built at start-up
tune_garbage_collector()
print(json.dumps({"before": before, "after": gc.get_threshold(),
                  "frozen": gc.get_freeze_count() >= len(kept)}))
"""


def test_tune_garbage_collector_freezes_the_start_up_heap_and_raises_the_thresholds() -> None:
    # In a process of its own: freezing this test process's heap would outlive the test.
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    seen = json.loads(run.stdout)
    # CPython's default (700, 10, 10 on 3.11) is not the tuning, so the change is the tuning's.
    assert tuple(seen["before"]) != GC_THRESHOLDS
    assert tuple(seen["after"]) == GC_THRESHOLDS and GC_THRESHOLDS[0] > seen["before"][0]
    assert seen["frozen"]
