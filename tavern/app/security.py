"""Request guards: the per-process access token and the origin policy.

Why both: the token stops another local program or a cross-site form from mutating state
(a foreign page cannot read it, see below), and the origin policy stops a foreign page from
reading anything, the token included. A `null` origin (sandboxed iframes, `file://` pages)
is refused outright, so it can never read `/bootstrap`. The Host allowlist closes DNS
rebinding: a foreign name that resolves to 127.0.0.1 is same-origin with itself, but its
Host header is not one we serve.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from urllib.parse import urlsplit

from fastapi import HTTPException, Request

TOKEN_HEADER = "X-Tavern-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def new_token() -> str:
    """A fresh random token; kept in memory only, never written anywhere."""
    return secrets.token_urlsafe(32)


def _strip_port(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def is_loopback_host(host: str) -> bool:
    """True for `localhost`, `*.localhost` and loopback IP literals (ports ignored)."""
    name = _strip_port(host)
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def origin_allowed(origin: str | None, host: str | None) -> bool:
    """The origin policy: absent, a loopback origin, or same-origin with the request's Host.

    Args:
        origin: The request's `Origin` header, if any.
        host: The request's `Host` header.

    Returns:
        Whether a browser page with that origin may talk to us.
    """
    if origin is None:
        # Non-browser clients and same-origin navigations send no Origin.
        return True
    if origin.strip().lower() == "null":
        return False
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    if is_loopback_host(parts.netloc):
        return True
    return host is not None and parts.netloc.lower() == host.strip().lower()


def host_allowed(host: str | None, extra_hosts: frozenset[str]) -> bool:
    """The Host allowlist: loopback names, plus hosts the operator configured."""
    if host is None:
        return False
    return is_loopback_host(host) or _strip_port(host) in extra_hosts


def check_request(
    request: Request, token: str, extra_hosts: frozenset[str], supplied: str | None
) -> None:
    """Apply host, origin and token checks; raise 403/401 on refusal.

    Args:
        request: The incoming request.
        token: This process's token.
        extra_hosts: Hosts served besides loopback names.
        supplied: The `X-Tavern-Token` header value, if any.

    Raises:
        HTTPException: 403 for a foreign host or origin, 401 for a missing or wrong token.
    """
    host = request.headers.get("host")
    if not host_allowed(host, extra_hosts):
        raise HTTPException(403, f"host {host!r} is not served here (loopback only)")
    if not origin_allowed(request.headers.get("origin"), host):
        raise HTTPException(403, "cross-origin request refused")
    if request.method in SAFE_METHODS:
        return
    if not supplied:
        raise HTTPException(401, f"missing {TOKEN_HEADER}; read it from GET /bootstrap")
    if not hmac.compare_digest(supplied.encode(), token.encode()):
        raise HTTPException(401, f"wrong {TOKEN_HEADER}")
