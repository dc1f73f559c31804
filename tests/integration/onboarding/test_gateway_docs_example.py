"""docs/gateway.md, "Which field": the `sh` block runs as written, printing what follows it.

The platform's gateway is served on a free port; only its address and the token (minted for
the platform's secret instead of `baton token`) are put into the block.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from baton_auth import mint_token

from ...platform_stack import SECRET
from ..dag.test_live import serving
from .conftest import Stack

DOC = Path(__file__).parents[3] / "docs" / "gateway.md"
TOKEN_COMMAND = "$(.venv/bin/baton token --user alice)"


def example() -> tuple[str, str]:
    """The section's `sh` block and the plain block after it (what it prints)."""
    text = DOC.read_text()
    start = text.index("### Which field")
    found = re.search(r"^```sh\n(.*?)^```\n\n^```\n(.*?)^```", text[start:], flags=re.S | re.M)
    assert found is not None, "docs/gateway.md lost its example"
    return found.group(1), found.group(2)


async def test_the_documented_field_names_are_what_the_gateway_answers(stack: Stack) -> None:
    commands, printed = example()
    assert TOKEN_COMMAND in commands and "127.0.0.1:8080" in commands
    async with serving(stack) as port:
        script = commands.replace(TOKEN_COMMAND, mint_token(SECRET, "docs-fields"))
        script = script.replace("127.0.0.1:8080", f"127.0.0.1:{port}")
        process = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            "set -euo pipefail\n" + script,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    assert out.decode() == printed
