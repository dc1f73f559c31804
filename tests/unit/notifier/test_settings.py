import os
import socket
from pathlib import Path

import pytest

from baton_notifier.entrypoints.main import dev_sign_in_warning
from baton_notifier.entrypoints.startup import inherited_sockets
from baton_notifier.settings import MIB, NotifierSettings, SettingsError, load_settings

SECRET = "s" * 32


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("BATON_"):
            monkeypatch.delenv(name)


def test_defaults_when_only_the_secret_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATON_JWT_SECRET", SECRET)
    settings = load_settings()
    assert settings == NotifierSettings(
        nats_url="nats://127.0.0.1:4222",
        jwt_secret=SECRET,
        http_host="127.0.0.1",
        http_port=8080,
        request_timeout_seconds=5.0,
        max_body_bytes=MIB,
        log_level="INFO",
    )


def test_every_setting_is_read_from_its_baton_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {
        "BATON_NATS_URL": "nats://n:4333",
        "BATON_JWT_SECRET": SECRET,
        "BATON_HTTP_HOST": "0.0.0.0",
        "BATON_HTTP_PORT": "9000",
        "BATON_REQUEST_TIMEOUT_SECONDS": "2.5",
        "BATON_MAX_BODY_BYTES": "1000",
        "BATON_MAX_HEADER_BYTES": "8192",
        "BATON_LOG_LEVEL": "debug",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = load_settings()
    assert (settings.nats_url, settings.http_host, settings.http_port) == (
        "nats://n:4333",
        "0.0.0.0",
        9000,
    )
    assert (settings.request_timeout_seconds, settings.max_body_bytes) == (2.5, 1000)
    assert settings.max_header_bytes == 8192
    assert settings.log_level == "DEBUG"


@pytest.mark.parametrize("value", ["100", "99999999"])
def test_a_header_cap_out_of_range_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("BATON_JWT_SECRET", SECRET)
    monkeypatch.setenv("BATON_MAX_HEADER_BYTES", value)
    with pytest.raises(SettingsError, match="BATON_MAX_HEADER_BYTES"):
        load_settings()


def test_a_missing_secret_is_refused_naming_the_variable() -> None:
    with pytest.raises(SettingsError, match="BATON_JWT_SECRET is required"):
        load_settings()


def test_a_short_secret_is_refused_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATON_JWT_SECRET", "short")
    with pytest.raises(SettingsError, match="BATON_JWT_SECRET: JWT secret must be at least 32"):
        load_settings()


def test_several_problems_are_named_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATON_JWT_SECRET", SECRET)
    monkeypatch.setenv("BATON_HTTP_PORT", "http")
    monkeypatch.setenv("BATON_REQUEST_TIMEOUT_SECONDS", "0")
    with pytest.raises(SettingsError) as caught:
        load_settings()
    message = str(caught.value)
    assert "\n" not in message
    assert "BATON_HTTP_PORT" in message
    assert "BATON_REQUEST_TIMEOUT_SECONDS" in message


def test_the_secret_is_not_shown_in_the_settings_repr() -> None:
    assert SECRET not in repr(NotifierSettings(jwt_secret=SECRET))


@pytest.mark.parametrize(
    ("host", "dev", "warned"),
    [("127.0.0.1", True, False), ("::1", True, False), ("[::1]", True, False),
     ("localhost", True, False), ("0.0.0.0", True, True), ("::", True, True),
     ("10.0.0.2", True, True), ("gateway.lan", True, True), ("0.0.0.0", False, False)],
)  # fmt: skip
def test_dev_sign_in_on_a_reachable_address_is_warned_about(
    host: str, dev: bool, warned: bool
) -> None:
    settings = NotifierSettings(jwt_secret=SECRET, http_host=host, dev_sign_in=dev)
    warning = dev_sign_in_warning(settings)
    assert (warning is not None) == warned
    if warning:
        assert repr(host) in warning and "any client that reaches it" in warning


def test_an_inherited_listening_socket_is_served_on(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        monkeypatch.setenv("BATON_JWT_SECRET", SECRET)
        monkeypatch.setenv("BATON_HTTP_FD", str(listener.fileno()))
        sockets = inherited_sockets(load_settings())
        assert sockets is not None
        [inherited] = sockets
        assert inherited.getsockname() == listener.getsockname()
        inherited.detach()  # the test's own descriptor: closed by `listener`


def test_an_http_fd_that_is_no_tcp_socket_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("BATON_JWT_SECRET", SECRET)
    with socket.socket(type=socket.SOCK_DGRAM) as udp:
        monkeypatch.setenv("BATON_HTTP_FD", str(udp.fileno()))
        with pytest.raises(SettingsError, match=r"^BATON_HTTP_FD: \d+ is not a TCP socket"):
            inherited_sockets(load_settings())
    with (tmp_path / "f").open("w") as file:
        monkeypatch.setenv("BATON_HTTP_FD", str(file.fileno()))
        with pytest.raises(SettingsError, match=r"^BATON_HTTP_FD: \d+ is not an open socket"):
            inherited_sockets(load_settings())
    unused = os.open(tmp_path / "g", os.O_CREAT)
    os.close(unused)
    monkeypatch.setenv("BATON_HTTP_FD", str(unused))
    with pytest.raises(SettingsError, match=r"^BATON_HTTP_FD: \d+ is not an open socket"):
        inherited_sockets(load_settings())
