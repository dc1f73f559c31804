"""A stand-in for the agent-runner: `fake_backend` answering `agent.query.health`."""

from __future__ import annotations

from fake_backend import run

if __name__ == "__main__":
    run("agent")
