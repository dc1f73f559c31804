"""compose.yaml: every variable a Baton service gets is one it reads, and every file exists."""

from __future__ import annotations

import importlib
import inspect
import ipaddress
import json
import pkgutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import AliasChoices
from pydantic_settings import BaseSettings

from baton_cli.restarts import KILL_MARGIN_SECONDS
from baton_cli.services import SERVICES, Setting
from baton_messaging.settings import DEFAULT_STOP_GRACE_SECONDS

ROOT = Path(__file__).parents[3]
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
DOCKERFILE = "infra/docker/Dockerfile"
BATON_SERVICES = {
    name: body
    for name, body in COMPOSE["services"].items()
    if isinstance(body.get("build"), dict) and body["build"].get("dockerfile") == DOCKERFILE
}
SHARED_SETTINGS = ("baton_messaging", "baton_telemetry")  # libs every service configures


def settings_classes(package: str) -> list[type[BaseSettings]]:
    """Every BaseSettings subclass defined in a package's modules."""
    root = importlib.import_module(package)
    modules = [root]
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        if not info.name.endswith(".__main__"):  # importing it would run the service
            modules.append(importlib.import_module(info.name))
    return [
        cls
        for module in modules
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, BaseSettings) and cls is not BaseSettings
        and cls.__module__ == module.__name__
    ]  # fmt: skip


def env_names(cls: type[BaseSettings]) -> dict[str, bool]:
    """Variable name (upper case) -> required, from fields, `env_prefix` and aliases."""
    prefix = str(cls.model_config.get("env_prefix", ""))
    names: dict[str, bool] = {}
    for name, field in cls.model_fields.items():
        alias = field.validation_alias or field.alias
        if isinstance(alias, AliasChoices):
            choices = [c for c in alias.choices if isinstance(c, str)]
        else:
            choices = [alias] if isinstance(alias, str) else [prefix + name]
        for choice in choices:
            names[choice.upper()] = field.is_required()
    return names


def module_of(body: dict[str, Any]) -> str:
    command = body["command"]
    assert command[:2] == ["python", "-m"], f"command should be python -m <module>: {command}"
    return str(command[2])


def test_compose_runs_the_baton_services_that_exist() -> None:
    assert "notifier" in BATON_SERVICES
    for name, body in BATON_SERVICES.items():
        service = body["build"]["args"]["SERVICE"]
        assert (ROOT / "services" / service / "pyproject.toml").is_file(), name
        assert module_of(body) == "baton_" + service.replace("-", "_")
        assert module_of(body) in {spec.module for spec in SERVICES}, "baton up should run it too"


@pytest.mark.parametrize("name", sorted(BATON_SERVICES))
def test_every_variable_is_one_the_service_reads(name: str) -> None:
    body = BATON_SERVICES[name]
    package = module_of(body)
    readable: dict[str, bool] = {}
    for owner in (package, *SHARED_SETTINGS):
        for cls in settings_classes(owner):
            readable.update(env_names(cls))
    assert readable, f"found no settings classes in {package}"
    given = {key.upper() for key in body["environment"]}
    assert all(key.startswith(("BATON_", "OTEL_")) for key in given), given
    assert sorted(given - set(readable)) == [], f"{name} sets variables nothing reads"
    own = env_names_of_package(package)
    missing = sorted(key for key, required in own.items() if required and key not in given)
    assert missing == [], f"{name} lacks required settings"


def env_names_of_package(package: str) -> dict[str, bool]:
    names: dict[str, bool] = {}
    for cls in settings_classes(package):
        names.update(env_names(cls))
    return names


def test_agent_runner_uses_its_database_qdrant_server_and_nats() -> None:
    body = BATON_SERVICES["agent-runner"]
    env = body["environment"]
    assert env["BATON_DATABASE_URL"].endswith("@postgres:5432/baton_agent")
    assert env["BATON_QDRANT_URL"] == "http://qdrant:6333" and env["BATON_MEMORY_BACKEND"] == "mem0"
    assert env["BATON_NATS_URL"] == "nats://nats:4222"
    assert {"nats", "postgres", "qdrant"} <= set(body["depends_on"])
    assert body["healthcheck"]["test"][-2:] == ["baton_messaging.health", "agent"]


def test_every_referenced_file_exists() -> None:
    for name, body in COMPOSE["services"].items():
        build = body.get("build")
        if isinstance(build, dict):
            assert (ROOT / build["context"] / build["dockerfile"]).is_file(), name
        for volume in body.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("."):
                assert (ROOT / source).exists(), f"{name}: {source}"


def test_every_service_has_a_healthcheck() -> None:
    for name, body in COMPOSE["services"].items():
        assert body.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"


def test_postgres_has_a_database_for_every_service_that_stores_data() -> None:
    init = (ROOT / "infra/postgres/init.sql").read_text()
    for spec in SERVICES:
        if Setting.DATABASE in spec.settings:
            assert f"CREATE DATABASE baton_{spec.name};" in init


def test_the_workflow_tools_may_not_reach_this_machine_the_metadata_or_other_containers() -> None:
    # With the deny-list empty (its default), a workflow's http-get read any container's answer
    # (PostgreSQL, NATS monitoring, the gateway) and the cloud metadata at 169.254.169.254.
    env = COMPOSE["services"]["workflow"]["environment"]
    denied = json.loads(env["BATON_WORKFLOW_TOOL_DENIED_HOSTS"])
    networks = [ipaddress.ip_network(e) for e in denied if e[0].isdigit() or ":" in e]
    for address in ("127.0.0.1", "::1", "169.254.169.254", "10.1.2.3", "172.18.0.5"):
        assert any(ipaddress.ip_address(address) in n for n in networks), address
    assert set(COMPOSE["services"]) <= set(denied)


def test_the_gateway_reports_on_the_health_of_the_services_compose_runs() -> None:
    env = COMPOSE["services"]["notifier"]["environment"]
    owners = {"notifier": "notifier", "workflow": "workflow", "agent-runner": "agent"}
    running = sorted(owners[name] for name in COMPOSE["services"] if name in owners)
    assert json.loads(env["BATON_HEALTH_SERVICES"]) == running


@pytest.mark.parametrize("name", ["workflow", "agent-runner"])
def test_a_backend_keeps_its_replica_id_in_its_own_container(name: str) -> None:
    # Without BATON_DATA_DIR a container restarted after a kill took a new name: the workflow
    # waited out its own leases, the agent-runner its own claims (a step's whole timeout).
    body = BATON_SERVICES[name]
    folder = body["environment"].get("BATON_DATA_DIR")
    assert folder, f"{name} sets no BATON_DATA_DIR"
    mounts = [str(v).split(":")[1] for v in body.get("volumes", []) if ":" in str(v)]
    assert not any(folder.startswith(mount) for mount in mounts)  # a volume replicas share


@pytest.mark.parametrize("name", sorted(BATON_SERVICES))
def test_each_service_is_given_its_whole_stop_before_docker_kills_it(name: str) -> None:
    # Docker's default SIGKILL, 10 s after SIGTERM, came before the services' own grace ran
    # out, cutting off the requests in flight and the last publish of their events.
    period = str(BATON_SERVICES[name].get("stop_grace_period", "10s"))
    assert period.endswith("s") and period[:-1].isdigit(), period
    grace = float(BATON_SERVICES[name]["environment"].get("BATON_STOP_GRACE_SECONDS", 0) or 0)
    assert float(period[:-1]) >= (grace or DEFAULT_STOP_GRACE_SECONDS) + KILL_MARGIN_SECONDS
