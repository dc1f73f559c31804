"""`python -m bench [-k GLOB ...] [--quick] [--trials N] [--list] [--no-write]`."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os

from rich.console import Console

from bench.measure import checked_trials, reference_ms
from bench.postgres import DEFAULT_URL
from bench.registry import REGISTRY, Options, Row, Skip
from bench.report import print_table, write_doc

# One module per area; each registers its cases on import. Add new areas here.
AREAS = [
    "bench.eventstore",
    "bench.workflow",
    "bench.chat",
    "bench.agent",
    "bench.live",
    "bench.dag",
    "bench.agent_calls",
    "bench.reference",
    "bench.reference_http",
    "bench.reference_langgraph",
    "bench.soak",
]


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("-k", "--case", action="append", default=[], help="glob of case names")
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument(
        "--trials",
        type=_odd_positive,
        default=3,
        help="runs of each row that has a target; the median is reported (odd, default 3)",
    )
    parser.add_argument("--list", action="store_true", help="list cases and exit")
    parser.add_argument("--no-write", action="store_true", help="do not rewrite the docs page")
    return parser.parse_args(argv)


def _odd_positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    try:
        return checked_trials(value)
    except ValueError as exc:  # argparse names the option itself
        raise argparse.ArgumentTypeError(str(exc).removeprefix("trials: ")) from None


async def run(args: argparse.Namespace, console: Console) -> None:
    for area in AREAS:
        importlib.import_module(area)
    cases = REGISTRY.select(args.case)
    if args.list or not cases:
        for c in REGISTRY.cases.values():
            console.print(f"{c.name}  [dim]{c.description}[/dim]")
        return
    url = os.environ.get("BATON_BENCH_POSTGRES_URL", DEFAULT_URL)
    options = Options(quick=args.quick, postgres_url=url, trials=args.trials)
    results: dict[str, list[Row]] = {}
    skipped: dict[str, str] = {}
    references: dict[str, float] = {}
    for c in cases:
        references[c.name] = reference_ms()
        console.print(f"[bold]{c.name}[/bold] ... (reference loop {references[c.name]:.0f} ms)")
        try:
            results[c.name] = await c.fn(options)
        except Skip as skip:
            skipped[c.name] = str(skip)
            console.print(f"  [yellow]skipped[/yellow]: {skip}")
    print_table(console, results)
    if not args.no_write and not args.quick:
        console.print(f"wrote {write_doc(results, skipped, references)}")


def main() -> None:
    asyncio.run(run(parse(), Console(width=150)))


if __name__ == "__main__":
    main()
