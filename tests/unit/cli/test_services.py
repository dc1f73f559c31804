from __future__ import annotations

from pathlib import Path

import pytest

from baton_cli.health import health_reply_ok, http_base_url
from baton_cli.services import (
    SERVICES,
    HttpHealth,
    NatsHealth,
    Runtime,
    ServiceSpec,
    Setting,
    installed_services,
    module_is_runnable,
    parse_module_overrides,
    service_env,
)
from baton_contracts import HEALTH_QUERIES

RUNTIME = Runtime(
    data_dir=Path("/data"), nats_url="nats://127.0.0.1:4333", jwt_secret="s" * 40,
    http_host="127.0.0.1", http_port=8181,
)  # fmt: skip
NOTIFIER = next(spec for spec in SERVICES if spec.name == "notifier")
WORKFLOW = next(spec for spec in SERVICES if spec.name == "workflow")


def test_the_table_has_unique_names_one_gateway_and_known_health_owners() -> None:
    names = [spec.name for spec in SERVICES]
    assert len(names) == len(set(names))
    assert [spec.name for spec in SERVICES if spec.is_gateway] == ["notifier"]
    for spec in SERVICES:
        assert isinstance(spec.health, HttpHealth) or spec.health.owner in HEALTH_QUERIES


def test_rows_without_a_runnable_module_are_skipped() -> None:
    table = [
        ServiceSpec("cli", "baton_cli", NatsHealth("workflow"), frozenset()),
        ServiceSpec("ghost", "baton_no_such_module", NatsHealth("trigger"), frozenset()),
        ServiceSpec("lib", "baton_contracts", NatsHealth("trigger"), frozenset()),  # no __main__
    ]
    assert [spec.name for spec in installed_services(table)] == ["cli"]


def test_an_override_replaces_a_rows_module() -> None:
    table = [ServiceSpec("ghost", "baton_no_such_module", NatsHealth("trigger"), frozenset())]
    chosen = installed_services(table, {"ghost": "baton_cli"})
    assert [(spec.name, spec.module) for spec in chosen] == [("ghost", "baton_cli")]


def test_an_empty_override_leaves_a_row_out() -> None:
    table = [ServiceSpec("cli", "baton_cli", NatsHealth("workflow"), frozenset())]
    assert installed_services(table, {"cli": ""}) == []


def test_an_override_for_an_unknown_service_is_an_error() -> None:
    with pytest.raises(ValueError, match="BATON_SERVICE_MODULES: unknown service"):
        installed_services(SERVICES, {"nope": "x"})


def test_module_overrides_parse_and_reject_garbage() -> None:
    assert parse_module_overrides(" a=x.y , b=z,c=") == {"a": "x.y", "b": "z", "c": ""}
    assert parse_module_overrides("") == {}
    with pytest.raises(ValueError, match="expected name=module, got 'broken'"):
        parse_module_overrides("broken")


def test_a_plain_module_and_a_package_with_main_are_runnable() -> None:
    assert module_is_runnable("baton_cli")
    assert module_is_runnable("json.tool")
    assert not module_is_runnable("baton_auth")


def test_the_gateway_gets_nats_secret_and_http_but_no_database() -> None:
    assert service_env(NOTIFIER, RUNTIME) == {
        "BATON_NATS_URL": "nats://127.0.0.1:4333",
        "BATON_JWT_SECRET": "s" * 40,
        "BATON_HTTP_HOST": "127.0.0.1",
        "BATON_HTTP_PORT": "8181",
        "BATON_LOG_LEVEL": "info",
        "BATON_DEV_SIGN_IN": "true",  # baton up is the dev runtime: the console signs in by name
    }


def test_the_gateway_reports_the_health_of_the_services_baton_up_starts() -> None:
    # Without it, /api/services listed the worker space and the trigger service `unreachable`
    # on every baton up that does not install them.
    runtime = Runtime(**{**RUNTIME.__dict__, "services": ("workflow", "notifier", "agent")})
    env = service_env(NOTIFIER, runtime)
    assert env["BATON_HEALTH_SERVICES"] == '["agent", "notifier", "workflow"]'
    assert "BATON_HEALTH_SERVICES" not in service_env(WORKFLOW, runtime)


def test_a_backend_gets_its_own_sqlite_file_and_no_secret() -> None:
    env = service_env(WORKFLOW, RUNTIME)
    assert env["BATON_DATABASE_URL"] == "sqlite+aiosqlite:////data/workflow.db"
    assert env["BATON_DATA_DIR"] == "/data"
    assert "BATON_JWT_SECRET" not in env


@pytest.mark.parametrize("folder", ["/tmp/dd?x", "/tmp/a%41b", "/tmp/with space#1"])
def test_a_data_dir_path_reaches_the_service_as_it_is(folder: str) -> None:
    # Unescaped, "?" cut the path short and "%41" was decoded: both services opened one file
    # outside the data dir (found by a review of the SQLite path).
    from sqlalchemy.engine import make_url

    runtime = Runtime(**{**RUNTIME.__dict__, "data_dir": Path(folder)})
    url = service_env(WORKFLOW, runtime)["BATON_DATABASE_URL"]
    assert make_url(url).database == f"{folder}/workflow.db"


def test_a_database_url_names_each_services_database() -> None:
    runtime = Runtime(
        **{**RUNTIME.__dict__, "database_url": "postgresql+asyncpg://pg/baton_{service}"}
    )
    assert (
        service_env(WORKFLOW, runtime)["BATON_DATABASE_URL"]
        == "postgresql+asyncpg://pg/baton_workflow"
    )


def test_each_qdrant_user_gets_its_own_folder() -> None:
    spec = ServiceSpec("agent", "m", NatsHealth("agent"), frozenset({Setting.QDRANT}))
    assert service_env(spec, RUNTIME) == {"BATON_QDRANT_PATH": "/data/qdrant/agent"}


@pytest.mark.parametrize(
    ("reply", "healthy"),
    [
        (b'{"ok": true, "result": {"service": "x", "healthy": true}}', True),
        (b'{"ok": true, "result": {"service": "x", "healthy": false}}', False),
        (b'{"ok": false, "error": {"code": "internal", "message": "m"}}', False),
        (b"not json", False),
    ],
)
def test_a_nats_health_reply_is_healthy_only_when_it_says_so(reply: bytes, healthy: bool) -> None:
    assert health_reply_ok(reply) is healthy


def test_a_wildcard_bind_is_probed_on_loopback() -> None:
    assert http_base_url("0.0.0.0", 80) == "http://127.0.0.1:80"
    assert http_base_url("::", 80) == "http://[::1]:80"
    assert http_base_url("10.0.0.2", 80) == "http://10.0.0.2:80"


@pytest.mark.parametrize(
    ("host", "expected"),
    [("127.0.0.1", "true"), ("::1", "true"), ("localhost", "true"), ("0.0.0.0", "false"),
     ("192.168.1.5", "false"), ("gateway.example.com", "false")],
)  # fmt: skip
def test_dev_sign_in_is_on_only_when_the_gateway_listens_on_loopback(
    host: str, expected: str
) -> None:
    runtime = Runtime(
        data_dir=Path("/tmp/d"), nats_url="nats://x", jwt_secret="s" * 32,
        http_host=host, http_port=8181,
    )  # fmt: skip
    gateway = next(s for s in SERVICES if s.name == "notifier")
    assert service_env(gateway, runtime)["BATON_DEV_SIGN_IN"] == expected
