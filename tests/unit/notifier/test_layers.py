"""`domain/` does no I/O: it may import only the standard library, pydantic and contracts."""

import ast
import sys
from pathlib import Path

import baton_notifier

PACKAGE = Path(baton_notifier.__file__).parent
ALLOWED = {"pydantic", "statemachine", "baton_contracts", "baton_notifier", "__future__"}
# Standard-library modules that do I/O or read the clock, the environment or randomness.
FORBIDDEN_STDLIB = {"os", "socket", "subprocess", "asyncio", "time", "random", "urllib", "http"}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_domain_imports_nothing_that_does_io() -> None:
    files = sorted((PACKAGE / "domain").glob("*.py"))
    assert files
    for path in files:
        foreign = {
            name
            for name in _imports(path)
            if name not in ALLOWED
            and (name not in sys.stdlib_module_names or name in FORBIDDEN_STDLIB)
        }
        assert not foreign, f"{path.name} imports {foreign}"


def test_domain_does_not_import_outer_layers() -> None:
    for path in (PACKAGE / "domain").glob("*.py"):
        text = path.read_text()
        for layer in ("service", "adapters", "entrypoints", "bootstrap"):
            assert f"baton_notifier.{layer}" not in text, f"{path.name} imports {layer}"
