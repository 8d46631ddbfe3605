"""Where a provider may be pointed.

Two policies. `private` (llama_cpp, local): a server on this machine or this network, i.e.
loopback, private-LAN addresses, single-label hosts (`gpu-box`) and private DNS suffixes.
`official` (key-bearing adapters such as deepseek): HTTPS to the vendor's own host only, so a
misconfigured or malicious api_base can never receive the key.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection
from typing import Literal
from urllib.parse import urlsplit

from tavern.llm.errors import UrlPolicyError

UrlPolicy = Literal["private", "official", "none"]

PRIVATE_SUFFIXES = (".local", ".internal", ".lan", ".home.arpa")
PRIVATE_NETWORKS = tuple(
    ipaddress.ip_network(net)
    for net in (
        "127.0.0.0/8",
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "::1/128",
        "fc00::/7",
    )
)
# Deliberately absent: 169.254.0.0/16 (link-local; cloud metadata lives there), 0.0.0.0 and
# every public range.


def _is_private_host(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        name = host.rstrip(".").lower()
        if name == "localhost" or name.endswith(".localhost"):
            return True
        if name and "." not in name and not name.isdigit():
            return True  # single-label host, resolved by the LAN's DNS or /etc/hosts
        return name.endswith(PRIVATE_SUFFIXES)
    return any(address in net for net in PRIVATE_NETWORKS)


def check_api_base(
    provider: str,
    url: str,
    *,
    policy: UrlPolicy,
    official_hosts: Collection[str] = (),
) -> str:
    """Validate `url` for `provider` under `policy`; return it without a trailing slash.

    Raises:
        UrlPolicyError: the URL is malformed, carries credentials, or points somewhere the
            policy does not allow.

    >>> check_api_base("llama_cpp", "http://127.0.0.1:8080/v1/", policy="private")
    'http://127.0.0.1:8080/v1'
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        raise UrlPolicyError(f"{provider}: api_base must be an http(s) URL, got {url!r}")
    if parts.username or parts.password:
        raise UrlPolicyError(f"{provider}: api_base must not carry credentials")
    if parts.query or parts.fragment:
        raise UrlPolicyError(f"{provider}: api_base must not have a query or fragment")
    if policy == "private" and not _is_private_host(host):
        raise UrlPolicyError(
            f"{provider}: {host!r} is not loopback, private-LAN, single-label or a private "
            "DNS suffix (.local, .internal, .lan, .home.arpa)"
        )
    if policy == "official":
        if parts.scheme != "https" or host.lower() not in official_hosts:
            allowed = ", ".join(sorted(official_hosts))
            raise UrlPolicyError(f"{provider}: api_base must be https://{allowed}, got {url!r}")
        if parts.port not in (None, 443):
            raise UrlPolicyError(f"{provider}: api_base must use the default HTTPS port")
    return url.rstrip("/")
