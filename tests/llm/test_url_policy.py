"""Provider URL policy: private for llama_cpp/local, official host only for key-bearing ones."""

from __future__ import annotations

import pytest

from tavern.llm import UrlPolicyError, check_api_base

PRIVATE_OK = [
    "http://127.0.0.1:8080/v1",
    "http://localhost:8080/v1",
    "http://[::1]:8080/v1",
    "http://10.0.0.5/v1",
    "http://172.16.3.4:9000",
    "http://192.168.1.20:8080/v1/",
    "http://gpu-box:8080/v1",
    "https://llm.local/v1",
    "http://models.internal:80",
    "http://box.lan",
    "http://nas.home.arpa/v1",
    "http://[fd12:3456::1]:8080",
]
PRIVATE_REFUSED = [
    "http://8.8.8.8/v1",
    "https://api.openai.com/v1",
    "http://169.254.169.254/latest",  # cloud metadata, link-local
    "http://0.0.0.0:8080",
    "http://172.32.0.1",  # just outside 172.16/12
    "http://evil.com/v1",
    "http://llm.local.evil.com",  # suffix must be the real suffix
    "http://user:pw@127.0.0.1:8080",
    "ftp://127.0.0.1/v1",
    "http://127.0.0.1:8080/v1?x=1",
    "127.0.0.1:8080",
    "http://[2001:4860::8888]/",
]


@pytest.mark.parametrize("url", PRIVATE_OK)
def test_private_policy_accepts(url: str) -> None:
    assert check_api_base("llama_cpp", url, policy="private") == url.rstrip("/")


@pytest.mark.parametrize("url", PRIVATE_REFUSED)
def test_private_policy_refuses(url: str) -> None:
    with pytest.raises(UrlPolicyError):
        check_api_base("llama_cpp", url, policy="private")


@pytest.mark.parametrize(
    "url",
    [
        "http://api.deepseek.com",
        "https://api.deepseek.com.attacker.io",
        "https://attacker.io/api.deepseek.com",
        "https://127.0.0.1",
        "https://api.deepseek.com:444",
        "https://key@api.deepseek.com",
    ],
)
def test_official_policy_refuses_everything_but_the_official_host(url: str) -> None:
    with pytest.raises(UrlPolicyError):
        check_api_base("deepseek", url, policy="official", official_hosts=("api.deepseek.com",))


def test_official_policy_accepts_the_official_host() -> None:
    for url in (
        "https://api.deepseek.com",
        "https://api.deepseek.com/v1",
        "https://API.deepseek.com",
    ):
        check_api_base("deepseek", url, policy="official", official_hosts=("api.deepseek.com",))
