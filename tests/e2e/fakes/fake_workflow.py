"""A stand-in for the workflow service: `fake_backend` answering `workflow.query.health`."""

from __future__ import annotations

from fake_backend import run

if __name__ == "__main__":
    run("workflow")
