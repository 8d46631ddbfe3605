"""Where a provider may be pointed, checked when the URL is saved and again at each connection.

Two policies. `private` (llama_cpp, local): a server on this machine or this network:
loopback, private-LAN and unique-local addresses, single-label hosts (`gpu-box`) and private
DNS suffixes. `official` (key-bearing adapters such as deepseek): HTTPS to the vendor's own
host only, so a misconfigured or malicious api_base can never receive the key.

Hosts are read the way resolvers read them, never by their spelling: `0xa9fea9fe`,
`2852039166`, `0251.0376.0251.0376` and `169.254.43518` are all 169.254.169.254; an
IPv4-mapped, IPv4-compatible, NAT64 or 6to4 IPv6 address is judged by the IPv4 address it
carries; names are IDNA-encoded (fullwidth digits and ideographic dots fold to ASCII) and lose
a trailing dot. Link-local addresses, cloud metadata addresses and metadata names are refused
under every policy. Saving checks the URL (`check_api_base`); every connection resolves the
host again through a `Resolver` and connects to the address it checked (`pin`), so a name
that later resolves elsewhere (DNS rebinding) is refused before any byte is sent.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import SplitResult, urlsplit

from tavern.llm.errors import UrlPolicyError

UrlPolicy = Literal["private", "official", "none"]
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""`(host, port) -> addresses` as strings: how a connection finds where a name points."""

PRIVATE_SUFFIXES = (".local", ".internal", ".lan", ".home.arpa", ".localhost")
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
"""What the `private` policy connects to. Absent on purpose: 169.254.0.0/16 and fe80::/10
(link-local: cloud metadata lives there), 0.0.0.0/8 and :: (they reach this machine under
another name), 100.64.0.0/10 (carrier NAT; Alibaba's metadata) and every public range."""
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200", "192.0.0.192")
)
"""Cloud metadata services (AWS, ECS, AWS over IPv6, Alibaba, Oracle): refused everywhere,
even where their range is otherwise allowed (fd00:ec2::254 lies in fc00::/7)."""
METADATA_LABELS = frozenset({"metadata", "instance-data"})
"""First labels of metadata names: `metadata.google.internal`, `metadata.goog`, a bare
`metadata`, `instance-data.ec2.internal` (their suffixes are otherwise private)."""
LINK_LOCAL = (ipaddress.ip_network("169.254.0.0/16"), ipaddress.ip_network("fe80::/10"))
NAT64 = ipaddress.ip_network("64:ff9b::/96")
SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_LABEL = re.compile(r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?")
_NUMBER = re.compile(r"0x[0-9a-f]*|[0-9]+")


def parse_ipv4(text: str) -> ipaddress.IPv4Address | None:
    """An IPv4 address as `inet_aton` reads it (one to four parts; each decimal, octal with a
    leading 0, or hex with 0x; the last part fills the remaining bytes), or None.

    >>> [str(parse_ipv4(t)) for t in ("0xa9fea9fe", "2852039166", "0251.0376.0251.0376")]
    ['169.254.169.254', '169.254.169.254', '169.254.169.254']
    >>> str(parse_ipv4("127.1")), parse_ipv4("256.1.1.1"), parse_ipv4("09.1.1.1")
    ('127.0.0.1', None, None)
    """
    parts = text.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values = []
    for part in parts:
        if part[:2] in ("0x", "0X"):
            digits, base = part[2:] or "0", 16
        elif len(part) > 1 and part.startswith("0"):
            digits, base = part[1:], 8
        else:
            digits, base = part, 10
        try:
            values.append(int(digits, base) if digits.isalnum() else -1)
        except ValueError:
            return None
    *head, last = values
    if any(not 0 <= v <= 255 for v in head) or not 0 <= last < 256 ** (5 - len(values)):
        return None
    number = last
    for i, value in enumerate(head):
        number += value << (8 * (3 - i))
    return ipaddress.IPv4Address(number)


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), if any.

    >>> str(embedded_ipv4(ipaddress.IPv6Address("::ffff:a9fe:a9fe")))
    '169.254.169.254'
    >>> embedded_ipv4(ipaddress.IPv6Address("::1")) is None
    True
    """
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    number = int(address)
    if address in NAT64 or (number >> 32 == 0 and number > 1):  # NAT64, IPv4-compatible
        return ipaddress.IPv4Address(number & 0xFFFFFFFF)
    return None


def read_host(host: str) -> Address | str:
    """The host as a resolver reads it: an address for every numeric or IPv6 form, else the
    IDNA (ASCII) name, lowercase, without a trailing dot.

    Raises:
        UrlPolicyError: a name that is neither a valid name nor a valid number (a last label
            that looks numeric must make a whole IPv4 address), or an IPv6 zone id.

    >>> read_host("0xa9fea9fe"), read_host("METADATA.google.internal.")
    (IPv4Address('169.254.169.254'), 'metadata.google.internal')
    >>> read_host("[::ffff:169.254.169.254]".strip("[]"))
    IPv6Address('::ffff:a9fe:a9fe')
    """
    if ":" in host:
        if "%" in host:
            raise UrlPolicyError(f"{host!r}: an IPv6 zone id is not allowed")
        try:
            return ipaddress.IPv6Address(host)
        except ValueError:
            raise UrlPolicyError(f"{host!r} is not an IPv6 address") from None
    try:
        name = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise UrlPolicyError(f"{host!r} is not a valid host name") from None
    name = name[:-1] if name.endswith(".") else name
    labels = name.split(".")
    if _NUMBER.fullmatch(labels[-1]):
        address = parse_ipv4(name)
        if address is None:
            raise UrlPolicyError(f"{host!r} is neither a host name nor an IPv4 address")
        return address
    if not all(_LABEL.fullmatch(label) for label in labels):
        raise UrlPolicyError(f"{host!r} is not a valid host name")
    return name


def _judged(address: Address) -> Address:
    """The address whose range decides: an IPv6 address carrying an IPv4 one is that one."""
    if isinstance(address, ipaddress.IPv6Address):
        return embedded_ipv4(address) or address
    return address


def address_refusal(address: Address, policy: UrlPolicy) -> str | None:
    """Why `policy` refuses to connect to `address`, or None when it may.

    >>> address_refusal(ipaddress.ip_address("fd00:ec2::254"), "private")
    'a cloud metadata address'
    >>> address_refusal(ipaddress.ip_address("10.0.0.5"), "private") is None
    True
    """
    judged = _judged(address)
    if address in METADATA_ADDRESSES or judged in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if any(judged in net for net in LINK_LOCAL if net.version == judged.version):
        return "a link-local address"
    if policy == "private" and not any(
        judged in net for net in PRIVATE_NETWORKS if net.version == judged.version
    ):
        return "not loopback, private-LAN or unique-local"
    if policy == "official" and (not judged.is_global or judged.is_multicast):
        return "not a public address"
    return None


def _metadata_name(name: str) -> bool:
    return name.split(".")[0] in METADATA_LABELS


def _parts(provider: str, url: str) -> tuple[SplitResult, Address | str]:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises on a port that is not a number in range)
    except ValueError as exc:
        raise UrlPolicyError(f"{provider}: api_base is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UrlPolicyError(f"{provider}: api_base must be an http(s) URL, got {url!r}")
    if parts.username is not None or parts.password is not None:
        raise UrlPolicyError(f"{provider}: api_base must not carry credentials")
    if parts.query or parts.fragment:
        raise UrlPolicyError(f"{provider}: api_base must not have a query or fragment")
    try:
        return parts, read_host(parts.hostname)
    except UrlPolicyError as exc:
        raise UrlPolicyError(f"{provider}: {exc}") from None


def _check_host(
    provider: str, host: Address | str, parts: SplitResult, policy: UrlPolicy,
    official_hosts: Collection[str],
) -> None:  # fmt: skip
    if isinstance(host, str) and _metadata_name(host):
        raise UrlPolicyError(f"{provider}: {host!r} is a cloud metadata name")
    if policy == "official":
        if parts.scheme != "https" or host not in {h.lower() for h in official_hosts}:
            allowed = ", ".join(sorted(official_hosts))
            raise UrlPolicyError(f"{provider}: api_base must be https://{allowed}")
        if parts.port not in (None, 443):
            raise UrlPolicyError(f"{provider}: api_base must use the default HTTPS port")
        return
    if isinstance(host, str):
        if policy == "private" and not (
            host == "localhost" or "." not in host or host.endswith(PRIVATE_SUFFIXES)
        ):
            raise UrlPolicyError(
                f"{provider}: {host!r} is not loopback, private-LAN, single-label or a private "
                "DNS suffix (.local, .internal, .lan, .home.arpa, .localhost)"
            )
        return
    refusal = address_refusal(host, policy)
    if refusal is not None:
        raise UrlPolicyError(f"{provider}: {host} is {refusal}")


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
    parts, host = _parts(provider, url)
    if policy != "none":
        _check_host(provider, host, parts, policy, official_hosts)
    return url.rstrip("/")


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the operating system resolves `host` to (`getaddrinfo`)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


@dataclass(frozen=True)
class Pinned:
    """Where one request connects: a URL naming the checked address, and the name it asks for."""

    url: str
    """The URL with its host replaced by the checked address."""
    host_header: str
    """The `Host` header: the URL's own host (and port)."""
    server_name: str | None
    """The TLS server name to present and verify (https to a name), else None."""


async def pin(
    provider: str,
    url: str,
    *,
    policy: UrlPolicy,
    official_hosts: Collection[str] = (),
    resolver: Resolver = system_resolver,
) -> Pinned:
    """Check `url` again, resolve its host now, check every address it resolves to, and
    return the URL that connects to the first of them (so nothing resolves it a second time).

    Raises:
        UrlPolicyError: the URL breaks the policy, the host does not resolve, or one of its
            addresses is one the policy refuses (a rebinding answers with one such address
            among others just as well).
    """
    parts, host = _parts(provider, url)
    if policy != "none":
        _check_host(provider, host, parts, policy, official_hosts)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if isinstance(host, str):
        try:
            found = await resolver(host, port)
            addresses = [ipaddress.ip_address(a.split("%")[0]) for a in found]
        except (OSError, ValueError) as exc:
            raise UrlPolicyError(f"{provider}: {host!r} does not resolve: {exc}") from None
        if not addresses:
            raise UrlPolicyError(f"{provider}: {host!r} resolves to nothing")
    else:
        addresses = [host]
    for address in addresses:
        refusal = address_refusal(address, policy) if policy != "none" else None
        if refusal is not None:
            raise UrlPolicyError(f"{provider}: {host!r} resolves to {address}, {refusal}")
    target = addresses[0]
    literal = f"[{target}]" if target.version == 6 else str(target)
    netloc = f"{literal}:{parts.port}" if parts.port else literal
    named = f"[{host}]" if isinstance(host, ipaddress.IPv6Address) else str(host)
    return Pinned(
        url=parts._replace(netloc=netloc).geturl(),
        host_header=f"{named}:{parts.port}" if parts.port else named,
        server_name=host if isinstance(host, str) and parts.scheme == "https" else None,
    )


@dataclass(frozen=True)
class Endpoint:
    """A provider's URL policy and the resolver its connections use (a seam for tests).

    >>> Endpoint("llama_cpp", "private").official_hosts
    ()
    """

    provider: str
    policy: UrlPolicy
    official_hosts: tuple[str, ...] = ()
    resolver: Resolver = system_resolver

    async def pin(self, url: str) -> Pinned:
        """`pin(url)` under this endpoint's policy and resolver."""
        return await pin(
            self.provider,
            url,
            policy=self.policy,
            official_hosts=self.official_hosts,
            resolver=self.resolver,
        )
