"""How a fetch reaches a host: directly, to an address the URL policy checked, or by a proxy.

The deny-list holds for names too: before each direct connection (the first URL and every
redirect) the host is resolved once, the request is refused when any of its addresses is in
a denied network, and the connection goes to a checked address, so a name that resolves
differently a moment later (DNS rebinding) cannot slip past. The name is kept for the Host
header, TLS SNI and the certificate check. A request sent through a proxy from the
environment (`HTTP_PROXY`, ...) is resolved by the proxy, which must enforce its own rules.
"""

from __future__ import annotations

import ipaddress
import ssl
import urllib.request
from collections.abc import Mapping

import httpx

from baton_workflow.adapters.url_policy import UrlPolicy, _ip
from baton_workflow.service.step_ports import StepActionFailed


def environment_proxies(
    proxies: Mapping[str, str] | None = None,
) -> dict[str, str | None]:
    """httpx mounts for the proxies of the environment, as httpx reads them for a client of
    its own: `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY` by scheme (a proxy without a scheme
    is `http://`), and each `NO_PROXY` entry as a direct route (None) after curl's rules:
    `example.com` is that domain and its subdomains, `.example.com` only its subdomains, an
    IP address or `localhost` only itself, `*` no proxy at all.

    `proxies` is what `urllib.request.getproxies()` gives (the environment, read each call).
    """
    found = urllib.request.getproxies() if proxies is None else proxies
    mounts: dict[str, str | None] = {}
    for scheme in ("http", "https", "all"):
        if proxy := found.get(scheme):
            mounts[f"{scheme}://"] = proxy if "://" in proxy else f"http://{proxy}"
    for host in (entry.strip() for entry in found.get("no", "").split(",")):
        if host == "*":
            return {}
        if not host:
            continue
        if "://" in host:
            mounts[host] = None
            continue
        try:
            address = ipaddress.ip_address(host.split("/")[0])  # an address, or a network
        except ValueError:
            exact = host.lower() == "localhost"
            mounts[f"all://{host}" if exact else f"all://*{host}"] = None
        else:
            mounts[f"all://[{host}]" if address.version == 6 else f"all://{host}"] = None
    return mounts


class _CheckedTransport(httpx.AsyncHTTPTransport):
    """Direct connections of one fetch: each request (first URL or redirect) resolves its host
    once, is refused when an address is denied, and is sent to a checked address.

    The request handed on differs only in its URL's host (the address) and the `sni_hostname`
    extension (the name, for SNI and the certificate check); its headers, Host included, are
    the original ones. When an address cannot be connected to, the next checked one is tried.
    """

    def __init__(self, policy: UrlPolicy, verify: ssl.SSLContext) -> None:
        super().__init__(verify=verify)
        self._policy = policy
        self._hops = 0

    async def count_hop(self, request: httpx.Request) -> None:
        """The client's request hook: it sees every hop, proxied ones too, so a refusal here
        knows whether it refuses the first URL or a redirect."""
        self._hops += 1

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not self._policy.denied_networks:
            # No address can be refused (the default list is empty): no lookup of our own.
            return await super().handle_async_request(request)
        url = request.url
        host = url.raw_host.decode("ascii")
        port = url.port or (443 if url.scheme == "https" else 80)
        timeouts = request.extensions.get("timeout", {})
        try:
            addresses = await self._policy.checked_addresses(host, port, timeouts.get("connect"))
        except StepActionFailed as exc:
            if self._hops > 1:
                raise StepActionFailed(f"redirect refused: {exc.message}") from None
            raise
        extensions = dict(request.extensions)
        if _ip(host) is None:
            extensions["sni_hostname"] = host
        for address in addresses[:-1]:
            try:
                return await super().handle_async_request(_to(request, address, extensions))
            except httpx.ConnectError:
                continue
        return await super().handle_async_request(_to(request, addresses[-1], extensions))


def _to(request: httpx.Request, address: str, extensions: dict[str, object]) -> httpx.Request:
    """`request` sent to `address`: the same headers (Host included), body and extensions."""
    return httpx.Request(
        request.method,
        request.url.copy_with(host=address),
        headers=request.headers,
        stream=request.stream,
        extensions=extensions,
    )
