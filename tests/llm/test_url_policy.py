"""Provider URL policy (issue 41, hole 4): hosts read the way resolvers read them, metadata
refused everywhere, and the resolved address checked again at every connection.

The config table holds every URL `PUT /config` saw through (hex, integer, octal and short
dotted IPv4; IPv4-mapped, -compatible, NAT64 and 6to4 IPv6; metadata names behind allowed
suffixes; IDNA folding) beside the forms that must keep working. The connect table resolves
names through a stub, as a rebinding DNS server would answer. The rebinding test runs a real
llama_cpp adapter against a real loopback server, its name resolved only by the stub.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

import tavern.llm
from tavern.llm import LlmCallError, UrlPolicyError, check_api_base
from tavern.llm import url_policy as url_policy_module
from tavern.llm.llama_cpp import LlamaCppProvider
from tavern.llm.provider import ProviderRequest
from tavern.llm.url_policy import Resolver, UrlPolicy, pin
from tavern.records import ChatMessage

DEEPSEEK = ("api.deepseek.com",)

# (policy, URL, allowed): the config check, as `PUT /config` and `resolve_settings` run it.
CONFIG: list[tuple[UrlPolicy, str, bool]] = [
    # Private servers keep working, in any spelling a resolver reads as theirs.
    ("private", "http://127.0.0.1:8080/v1", True),
    ("private", "http://localhost:8080/v1", True),
    ("private", "http://LOCALHOST.:8080/v1", True),
    ("private", "http://api.localhost:8080/v1", True),
    ("private", "http://[::1]:8080/v1", True),
    ("private", "http://[::ffff:127.0.0.1]:8080/v1", True),
    ("private", "http://127.1:8080/v1", True),
    ("private", "http://0x7f.1:8080/v1", True),
    ("private", "http://10.0.0.5/v1", True),
    ("private", "http://172.16.3.4:9000", True),
    ("private", "http://192.168.1.20:8080/v1/", True),
    ("private", "http://gpu-box:8080/v1", True),
    ("private", "https://llm.local/v1", True),
    ("private", "http://models.internal:80", True),
    ("private", "http://box.lan", True),
    ("private", "http://nas.home.arpa/v1", True),
    ("private", "http://[fd12:3456::1]:8080", True),
    # 169.254.169.254, the cloud metadata service, in every IPv4 spelling.
    ("private", "http://169.254.169.254/latest", False),
    ("private", "http://0xa9fea9fe/", False),
    ("private", "http://2852039166/", False),
    ("private", "http://0251.0376.0251.0376/", False),
    ("private", "http://0xa9.0xfe.0xa9.0xfe/", False),
    ("private", "http://169.254.43518/", False),
    ("private", "http://169.16689662/", False),
    ("private", "http://169.254.169.254./", False),
    (
        "private",
        "http://\uff11\uff16\uff19.\uff12\uff15\uff14.\uff11\uff16\uff19.\uff12\uff15\uff14/",
        False,
    ),
    # ...and carried inside IPv6.
    ("private", "http://[::ffff:169.254.169.254]/", False),
    ("private", "http://[::ffff:a9fe:a9fe]/", False),
    ("private", "http://[::169.254.169.254]/", False),
    ("private", "http://[64:ff9b::a9fe:a9fe]/", False),
    ("private", "http://[2002:a9fe:a9fe::1]/", False),
    # Other metadata addresses, link-local, this-host and public ones.
    ("private", "http://[fd00:ec2::254]/", False),
    ("private", "http://169.254.170.2/v2/credentials", False),
    ("private", "http://100.100.100.200/", False),
    ("private", "http://192.0.0.192/", False),
    ("private", "http://[fe80::1]/", False),
    ("private", "http://[fe80::1%25eth0]/", False),
    ("private", "http://0.0.0.0:8080", False),
    ("private", "http://0:8080", False),
    ("private", "http://[::]:8080", False),
    ("private", "http://0x08080808/", False),
    ("private", "http://134744072/", False),
    ("private", "http://8.8.8.8/v1", False),
    ("private", "http://[2001:4860::8888]/", False),
    ("private", "http://172.32.0.1", False),
    # Metadata names behind otherwise private suffixes, however written.
    ("private", "http://metadata.google.internal/", False),
    ("private", "http://metadata.google.internal./", False),
    ("private", "http://METADATA.GOOGLE.INTERNAL/", False),
    ("private", "http://metadata\u3002google\u3002internal/", False),
    ("private", "http://metadata/computeMetadata/v1", False),
    ("private", "http://metadata.goog/", False),
    ("private", "http://instance-data.ec2.internal/", False),
    # Not names, not numbers, not private.
    ("private", "http://256.1.1.1/", False),
    ("private", "http://1.2.3.4.5/", False),
    ("private", "http://box.0x7f/", False),
    ("private", "http://09.1.1.1/", False),
    ("private", "http://evil.com/v1", False),
    ("private", "http://llm.local.evil.com", False),
    ("private", "http://user:pw@127.0.0.1:8080", False),
    ("private", "ftp://127.0.0.1/v1", False),
    ("private", "http://127.0.0.1:8080/v1?x=1", False),
    ("private", "127.0.0.1:8080", False),
    ("private", "http://127.0.0.1:99999/", False),
    # The official host, only.
    ("official", "https://api.deepseek.com", True),
    ("official", "https://api.deepseek.com/v1", True),
    ("official", "https://API.deepseek.com", True),
    ("official", "https://api.deepseek.com./v1", True),
    ("official", "http://api.deepseek.com", False),
    ("official", "https://api.deepseek.com.attacker.io", False),
    ("official", "https://attacker.io/api.deepseek.com", False),
    ("official", "https://127.0.0.1", False),
    ("official", "https://0x7f000001", False),
    ("official", "https://[::1]", False),
    ("official", "https://api.deepseek.com:444", False),
    ("official", "https://key@api.deepseek.com", False),
]


@pytest.mark.parametrize(("policy", "url", "allowed"), CONFIG)
def test_config_policy(policy: UrlPolicy, url: str, allowed: bool) -> None:
    if allowed:
        assert check_api_base("p", url, policy=policy, official_hosts=DEEPSEEK) == url.rstrip("/")
    else:
        with pytest.raises(UrlPolicyError):
            check_api_base("p", url, policy=policy, official_hosts=DEEPSEEK)


def test_the_table_is_large_and_both_ways() -> None:
    refused = [u for _p, u, ok in CONFIG if not ok]
    assert len(CONFIG) >= 40 and len(refused) >= 40 and len(CONFIG) - len(refused) >= 20


def _stub(table: dict[str, Sequence[str]]) -> Resolver:
    async def resolve(host: str, port: int) -> Sequence[str]:
        if host not in table:
            raise OSError(f"stub: {host} unknown")
        return table[host]

    return resolve


# (policy, URL, what the host resolves to, connected address or None when refused)
CONNECT: list[tuple[UrlPolicy, str, list[str], str | None]] = [
    ("private", "http://gpu-box:8080/v1", ["127.0.0.1"], "127.0.0.1"),
    ("private", "http://gpu-box:8080/v1", ["10.0.0.2", "fd12::1"], "10.0.0.2"),
    ("private", "http://gpu-box:8080/v1", ["169.254.169.254"], None),
    ("private", "http://gpu-box:8080/v1", ["10.0.0.2", "169.254.169.254"], None),
    ("private", "http://gpu-box:8080/v1", ["fd00:ec2::254"], None),
    ("private", "http://gpu-box:8080/v1", ["::ffff:169.254.169.254"], None),
    ("private", "http://gpu-box:8080/v1", ["fe80::1%eth0"], None),
    ("private", "http://gpu-box:8080/v1", ["8.8.8.8"], None),
    ("private", "http://gpu-box:8080/v1", ["0.0.0.0"], None),
    ("private", "http://llm.local/v1", [], None),
    ("official", "https://api.deepseek.com", ["104.18.26.90"], "104.18.26.90"),
    ("official", "https://api.deepseek.com", ["127.0.0.1"], None),
    ("official", "https://api.deepseek.com", ["10.1.2.3"], None),
    ("official", "https://api.deepseek.com", ["169.254.169.254"], None),
    ("official", "https://api.deepseek.com", ["::ffff:7f00:1"], None),
]


@pytest.mark.parametrize(("policy", "url", "answers", "connected"), CONNECT)
def test_connect_checks_what_the_name_resolves_to_now(
    policy: UrlPolicy, url: str, answers: list[str], connected: str | None
) -> None:
    host = httpx.URL(url).host
    resolver = _stub({host: answers})
    if connected is None:
        with pytest.raises(UrlPolicyError):
            asyncio.run(pin("p", url, policy=policy, official_hosts=DEEPSEEK, resolver=resolver))
        return
    pinned = asyncio.run(pin("p", url, policy=policy, official_hosts=DEEPSEEK, resolver=resolver))
    assert httpx.URL(pinned.url).host == connected
    assert pinned.host_header.split(":")[0] == host
    assert pinned.server_name == (host if url.startswith("https") else None)


def test_an_address_literal_is_checked_without_resolving() -> None:
    pinned = asyncio.run(pin("p", "http://0x7f.1:8080/v1", policy="private", resolver=_stub({})))
    assert pinned.url == "http://127.0.0.1:8080/v1"


class _Server(ThreadingHTTPServer):
    hosts: list[str]


class _Chat(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.hosts.append(self.headers.get("Host", ""))
        body = json.dumps({"choices": [{"message": {"content": "The door holds."}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def loopback_server() -> Iterator[_Server]:
    server = _Server(("127.0.0.1", 0), _Chat)
    server.hosts = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _rebinding(first: str, then: str) -> tuple[Resolver, list[str]]:
    """A resolver answering `first` once and `then` ever after, as a rebinding server does."""
    asked: list[str] = []

    async def resolve(host: str, port: int) -> Sequence[str]:
        asked.append(host)
        return [first if len(asked) == 1 else then]

    return resolve, asked


def _request() -> ProviderRequest:
    return ProviderRequest(
        agent="prose", messages=[ChatMessage(role="user", content="Go on.")], turn_number=1
    )


async def _twice(server: _Server, resolver: Resolver) -> list[str]:
    """Two calls to `gpu-box` (a name only the resolver knows): how each ended."""
    port = server.server_address[1]
    outcomes = []
    async with httpx.AsyncClient() as http:  # a real socket
        provider = LlamaCppProvider(
            http_client=http, api_base=f"http://gpu-box:{port}/v1", resolver=resolver
        )
        for _ in range(2):
            try:
                outcomes.append((await provider.complete(_request())).content)
            except LlmCallError as exc:
                outcomes.append(exc.error_type)
    return outcomes


def test_a_rebound_name_is_refused_at_connect(
    loopback_server: _Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rebound to 0.0.0.0: this machine under another name, which Linux does connect to."""
    monkeypatch.setattr(tavern.llm, "ALLOW_LIVE_CALLS", True)
    resolver, asked = _rebinding("127.0.0.1", "0.0.0.0")
    outcomes = asyncio.run(_twice(loopback_server, resolver))
    # The first call connected where the stub pointed (the name is nobody else's), asking
    # for its own name; the second, rebound, never left the process.
    assert outcomes == ["The door holds.", "refused"]
    port = loopback_server.server_address[1]
    assert loopback_server.hosts == [f"gpu-box:{port}"] and asked == ["gpu-box", "gpu-box"]


def test_negative_control_a_connection_trusting_the_saved_check_is_caught(
    loopback_server: _Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Planted: no address is checked once the URL was saved; the rebound name connects."""
    monkeypatch.setattr(tavern.llm, "ALLOW_LIVE_CALLS", True)
    monkeypatch.setattr(url_policy_module, "address_refusal", lambda address, policy: None)
    resolver, _ = _rebinding("127.0.0.1", "0.0.0.0")
    outcomes = asyncio.run(_twice(loopback_server, resolver))
    assert outcomes == ["The door holds.", "The door holds."]
    assert len(loopback_server.hosts) == 2


def test_negative_control_a_host_read_by_its_spelling_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Planted: the host read as written (a hex address is then a single-label name)."""

    def spelling(host: str) -> object:
        try:
            return url_policy_module.ipaddress.ip_address(host)
        except ValueError:
            return host.rstrip(".").lower()

    monkeypatch.setattr(url_policy_module, "read_host", spelling)
    assert check_api_base("p", "http://0xa9fea9fe/", policy="private") == "http://0xa9fea9fe"
