"""domain/ packages do no I/O: only the standard library, pydantic, statemachine and contracts."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
# yaml: the DAG definition parser reads YAML text with safe_load (a parser, no I/O).
ALLOWED_THIRD_PARTY = {"pydantic", "statemachine", "baton_contracts", "typing_extensions", "yaml"}
FORBIDDEN_CALLS = {
    "datetime.now",
    "datetime.utcnow",
    "uuid4",
    "uuid.uuid4",
    "os.environ",
    "time.time",
    "random.random",
}
DOMAIN_FILES = sorted(ROOT.glob("services/*/src/*/domain/**/*.py"))


def imported_roots(tree: ast.AST) -> set[str]:
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def test_there_are_domain_modules_to_check() -> None:
    assert DOMAIN_FILES


@pytest.mark.parametrize("path", DOMAIN_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_domain_module_imports_nothing_that_does_io(path: Path) -> None:
    tree = ast.parse(path.read_text())
    own_package = path.parts[path.parts.index("src") + 1]
    allowed = ALLOWED_THIRD_PARTY | set(sys.stdlib_module_names) | {own_package}
    bad = {root for root in imported_roots(tree) if root not in allowed}
    bad |= {
        f"{own_package}.<outside domain>"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module
        and node.module.startswith(f"{own_package}.")
        and not node.module.startswith(f"{own_package}.domain")
    }
    assert not bad, f"{path.name} imports {sorted(bad)}"
    io_modules = {"socket", "subprocess", "asyncio", "sqlite3", "urllib", "http", "os", "random"}
    assert not (imported_roots(tree) & io_modules), f"{path.name} imports I/O modules"


@pytest.mark.parametrize("path", DOMAIN_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_domain_module_reads_no_clock_ids_or_environment(path: Path) -> None:
    tree = ast.parse(path.read_text())
    used = {dotted(n) for n in ast.walk(tree) if isinstance(n, ast.Attribute | ast.Name)}
    assert not (used & FORBIDDEN_CALLS), f"{path.name} uses {sorted(used & FORBIDDEN_CALLS)}"


# service/ sees only its domain, its ports and contracts: adapters, entrypoints and bootstrap
# are wired to it, and the technologies they wrap stay out. Workflow's service/ still imports
# adapters.instances; add it here once it does not.
LAYERED_SERVICES = ["agent-runner"]
TECHNOLOGY = {"sqlalchemy", "openai", "pydantic_ai", "mem0", "qdrant_client", "faststream", "httpx"}
SERVICE_FILES = sorted(
    path for name in LAYERED_SERVICES for path in ROOT.glob(f"services/{name}/src/*/service/*.py")
)


def test_there_are_service_modules_to_check() -> None:
    assert SERVICE_FILES


@pytest.mark.parametrize("path", SERVICE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_service_module_imports_no_adapter_entrypoint_or_technology(path: Path) -> None:
    tree = ast.parse(path.read_text())
    own_package = path.parts[path.parts.index("src") + 1]
    outer = tuple(f"{own_package}.{layer}" for layer in ("adapters", "entrypoints", "bootstrap"))
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    bad = {m for m in modules if m and (m.startswith(outer) or m.split(".")[0] in TECHNOLOGY)}
    assert not bad, f"{path.name} imports {sorted(bad)}"
