"""The gateway's framework with nothing of Baton in it: one FastAPI route on uvicorn.

`python -m bench.bare_http` serves, on `BATON_HTTP_PORT`, a `POST` route shaped like the
gateway's signal route (a path parameter, a validated JSON body, a bearer dependency, a
response model) that answers at once: no token check, no NATS, no owner. Uvicorn runs as the
gateway runs it (httptools, uvloop, no lifespan, logs at WARNING). What one request costs
this process is the floor of every gateway request on this machine (`reference.fastapi`).
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import uvicorn
from fastapi import Depends, FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field

app = FastAPI(title="bare FastAPI reference")


class Body(BaseModel):
    """Like the gateway's signal body."""

    model_config = ConfigDict(extra="forbid")

    action: str = Field(min_length=1)
    data: dict[str, Any] = Field(default_factory=dict)


class Answer(BaseModel):
    """A small reply, serialised through the route's response model."""

    outcome: str
    instance_id: str
    caller: str


async def caller(request: Request) -> str:
    """Reads the bearer header, as the gateway's identity dependency does (without a JWT)."""
    return request.headers.get("authorization", "").partition(" ")[2]


@app.post("/api/workflows/{instance_id}/signal", response_model=Answer)
async def signal(instance_id: str, body: Body, who: Annotated[str, Depends(caller)]) -> Answer:
    """Answers at once."""
    return Answer(outcome="transitioned", instance_id=instance_id, caller=who[:8])


@app.get("/health")
async def health() -> dict[str, str]:
    """Up."""
    return {"status": "ok"}


if __name__ == "__main__":
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=int(os.environ["BATON_HTTP_PORT"]),
        log_level="warning",
        lifespan="off",
        http="httptools",
        loop="uvloop",
    )
