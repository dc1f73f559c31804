"""The tools' reading of the proxy environment: httpx's mounts, by curl's NO_PROXY rules."""

from __future__ import annotations

import pytest

from baton_workflow.adapters.httpx_fetch import environment_proxies


def test_nothing_set_is_no_mount() -> None:
    assert environment_proxies({}) == {}


def test_each_scheme_gets_its_proxy_and_a_bare_host_is_http() -> None:
    proxies = {"http": "proxy.internal:3128", "https": "https://secure.internal", "all": ""}
    assert environment_proxies(proxies) == {
        "http://": "http://proxy.internal:3128",
        "https://": "https://secure.internal",
    }


@pytest.mark.parametrize(
    ("entry", "pattern"),
    [
        ("example.com", "all://*example.com"),  # the domain and its subdomains
        (".example.com", "all://*.example.com"),  # only its subdomains
        ("localhost", "all://localhost"),
        ("LocalHost", "all://LocalHost"),
        ("10.0.0.7", "all://10.0.0.7"),
        ("::1", "all://[::1]"),
        ("192.168.0.0/16", "all://192.168.0.0/16"),
        ("http://plain.example.com", "http://plain.example.com"),
    ],
)
def test_a_no_proxy_entry_is_a_direct_route(entry: str, pattern: str) -> None:
    mounts = environment_proxies({"all": "http://proxy.internal", "no": f" {entry} ,"})
    assert mounts == {"all://": "http://proxy.internal", pattern: None}


def test_a_star_in_no_proxy_turns_every_proxy_off() -> None:
    assert environment_proxies({"http": "http://p", "no": "example.com,*"}) == {}


def test_the_environment_is_read_when_nothing_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "REQUEST_METHOD"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "internal.example")
    assert environment_proxies() == {
        "https://": "http://proxy.internal:3128",
        "all://*internal.example": None,
    }
