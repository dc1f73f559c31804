"""docs/chat.md, "The classic onboarding": its `sh` block runs as written, with curl, against the
gateway served on a free port, and prints what the text after it says."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx

from baton_auth import mint_token

from ..dag.test_live import serving
from .conftest import SECRET, Stack

DOC = Path(__file__).parents[3] / "docs" / "chat.md"
TOKEN_COMMAND = "$(.venv/bin/baton token --user alice)"


def section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def script(port: int, token: str) -> str:
    text = DOC.read_text()
    setup = re.findall(r"^```sh\n(.*?)^```", section(text, "Try it"), flags=re.S | re.M)[0]
    # The variables the first example sets, which the classic one uses "in the same terminal".
    variables = [line for line in setup.splitlines() if re.match(r"(TOKEN|API|AUTH|JSON)=", line)]
    assert len(variables) == 4, setup
    [block] = re.findall(
        r"^```sh\n(.*?)^```", section(text, "The classic onboarding"), flags=re.S | re.M
    )
    body = "\n".join([*variables, block])
    assert TOKEN_COMMAND in body and "127.0.0.1:8080" in body
    body = body.replace(TOKEN_COMMAND, token).replace("127.0.0.1:8080", f"127.0.0.1:{port}")
    return "set -euo pipefail\n" + body


async def test_the_documented_classic_onboarding_runs_as_written(
    stack: Stack, http: httpx.AsyncClient, tmp_path: Path
) -> None:
    async with serving(stack) as port:
        process = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            script(port, mint_token(SECRET, "classic-reader")),
            cwd=tmp_path,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
    output = out.decode()
    print(output)
    assert process.returncode == 0, err.decode() + output
    lines = output.splitlines()
    told = [line for line in lines if " | " in line]  # what `tell` printed, c1 to c6
    steps = [line.split(" | ")[0] for line in told]
    assert steps == ["greeting", "discovery", "discovery", "brain_dump", "brain_dump", "completed"]
    documented = section(DOC.read_text(), "The classic onboarding")
    reply = re.search(r'`c5` is answered "(.*?)"', documented, flags=re.S)
    assert reply is not None
    assert " ".join(reply.group(1).split()) in told[4], told[4]
    assert "transitioned completed" in lines
    assert "['book a dentist', 'renew passport']" in lines
    assert "inbox items: 2" in lines[-1], lines[-1]
