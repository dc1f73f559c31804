"""AsyncAPI documents for Baton services, from their FastStream apps or brokers.

    python -m baton_messaging.asyncapi docs/asyncapi baton_workflow.entrypoints.main:app ...

writes `<service>.json` and `<service>.yaml` for each target. A target is a `FastStream` app
(its own AsyncAPI settings are kept) or a broker (documented under the connection name that
`build_broker` gave it).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from faststream import FastStream
from faststream._internal.broker import BrokerUsecase
from faststream.specification import AsyncAPI
from faststream.specification.base import Specification, SpecificationFactory


class AsyncAPIError(ValueError):
    """A target could not be imported or is neither a FastStream app nor a broker."""


def load_target(path: str) -> Any:
    """Import `module:attr` (attr may be dotted) and return the object it names."""
    module_name, sep, attr = path.partition(":")
    if not sep or not module_name or not attr:
        raise AsyncAPIError(f"target {path!r} must look like 'package.module:attribute'")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise AsyncAPIError(f"target {path!r}: cannot import {module_name!r}: {exc}") from exc
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AsyncAPIError(f"target {path!r}: {module_name} has no {attr!r}") from None
    return target


def service_name(target: FastStream | BrokerUsecase[Any, Any, Any]) -> str:
    """The name a document is filed under: the broker's connection name."""
    if not isinstance(target, FastStream | BrokerUsecase):
        raise AsyncAPIError(f"{target!r} is neither a FastStream app nor a broker")
    broker = target.broker if isinstance(target, FastStream) else target
    name = getattr(broker, "_connection_kwargs", {}).get("name") if broker else None
    if not isinstance(name, str) or not name:
        raise AsyncAPIError(f"{target!r} has no broker named for a service (use build_broker)")
    return name


def specification_of(target: FastStream | BrokerUsecase[Any, Any, Any]) -> Specification:
    """The AsyncAPI specification FastStream derives from an app or a broker."""
    if isinstance(target, FastStream):
        factory: SpecificationFactory = target.schema
    else:
        factory = AsyncAPI(target, title=f"baton {service_name(target)}")
    return factory.to_specification()


def write_documents(out_dir: Path, targets: Iterable[Any]) -> list[Path]:
    """Write `<service>.json` and `<service>.yaml` for each target; returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for target in targets:
        name, spec = service_name(target), specification_of(target)
        for suffix, text in ((".json", spec.to_json()), (".yaml", spec.to_yaml())):
            path = out_dir / f"{name}{suffix}"
            path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
            written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the process exit code."""
    parser = argparse.ArgumentParser(prog="python -m baton_messaging.asyncapi")
    parser.add_argument("out_dir", type=Path, help="folder for <service>.json and .yaml")
    parser.add_argument("targets", nargs="+", help="module:attr of a FastStream app or broker")
    args = parser.parse_args(argv)
    try:
        written = write_documents(args.out_dir, [load_target(t) for t in args.targets])
    except AsyncAPIError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
