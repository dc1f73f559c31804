"""A fake OpenAI-compatible server on 127.0.0.1 (a real HTTP server): chat completions that
answer as `mode` says, and bag-of-words embeddings, so texts sharing words are near."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI(ThreadingHTTPServer):
    """`mode`: valid, malformed, unsignalled, empty (no choices), unstorable (NUL characters
    in the message and the data, as `UNSTORABLE`), slow (every answer waits `delay`
    seconds), or tools (the first answer calls every function tool offered, the next one
    answers as valid)."""

    daemon_threads = True
    mode = "valid"
    delay = 1.5
    dims = 16
    requests: list[dict[str, Any]]
    respond: Callable[[dict[str, Any], int], tuple[int, Any]] | None = None
    """When set, every chat completion is its answer to (the request's body, how many requests
    came so far): the HTTP status and the JSON body, whatever `mode` says."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        """The slow answer lands after the client gave up: that broken pipe is expected."""


class Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        if self.server.mode == "slow":
            time.sleep(self.server.delay)
        status = 200
        if self.path.endswith("/embeddings"):
            answer = embeddings(body, self.server.dims)
        elif self.server.respond is not None:
            status, answer = self.server.respond(body, len(self.server.requests))
        else:
            answer = completion(body, self.server.mode)
        payload = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


def completion(body: dict[str, Any], mode: str) -> dict[str, Any]:
    names = [each["function"]["name"] for each in body["tools"]]
    tool = next((name for name in names if name.startswith("final_result")), names[0])
    if mode == "tools" and not any(m.get("role") == "tool" for m in body["messages"]):
        return _calls(  # every tool but the output one first, as a model asking would
            [(name, {"query": "work"} if name == "recall_facts" else {}) for name in names
             if name != tool]
        )  # fmt: skip
    output: dict[str, Any] = {
        "message": "Hello from the model",
        "step_completed": True,
        "completion_reason": "user_confirmed",
        "next_action": "transition",
        "workflow_signal": {"action": "complete_step", "data": {}},
    }
    if mode == "unsignalled":
        output = {"message": "No signal here"}
    if mode == "unstorable":
        output = UNSTORABLE
    arguments = "{not json" if mode == "malformed" else json.dumps(output)
    call = {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": arguments}}
    choice = {
        "index": 0,
        "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": None, "tool_calls": [call]},
    }
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [] if mode == "empty" else [choice],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


UNSTORABLE: dict[str, Any] = {
    "message": "Hello\u0000 from the model",
    "extracted_data": {
        "inbox_items": ["buy milk\u0000", "call mom"],
        "facts\u0000": {"work": "ship it"},
    },
    "workflow_signal": {"action": "stay", "data": {"note": "a\u0000b", "k\u0000": 1, "n": 2}},
}
"""A reply PostgreSQL cannot store as written: NUL characters in texts and in keys."""


def embeddings(body: dict[str, Any], dims: int) -> dict[str, Any]:
    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
    data = [
        {"object": "embedding", "index": i, "embedding": bag_of_words(text, dims)}
        for i, text in enumerate(texts)
    ]
    usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
    return {"object": "list", "data": data, "model": body["model"], "usage": usage}


def bag_of_words(text: str, dims: int) -> list[float]:
    """Each word adds 1 to one dimension chosen by its hash; unit length."""
    vector = [0.0] * dims
    for word in re.findall(r"\w+", text.casefold()):
        vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % dims] += 1.0
    norm = sum(v * v for v in vector) ** 0.5
    return [v / norm for v in vector] if norm else [1.0] + [0.0] * (dims - 1)


def _calls(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """A completion that calls these tools with these arguments."""
    tool_calls = [
        {"id": f"call_{n}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}
        for n, (name, arguments) in enumerate(calls)
    ]  # fmt: skip
    choice = {
        "index": 0,
        "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": None, "tool_calls": tool_calls},
    }
    return {
        "id": "chatcmpl-tools",
        "object": "chat.completion",
        "created": 0,
        "model": "fake",
        "choices": [choice],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
    }
