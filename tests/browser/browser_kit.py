"""Helpers shared by the browser tests: sizes, screenshots, and steps every test takes.

Screenshots go to test-artifacts/browser/ (git-ignored), each at desktop and mobile width.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
DESKTOP = {"width": 1280, "height": 800}
MOBILE = {"width": 390, "height": 844}
IDLE_MS = 30_000


def shoot(page: Any, name: str, *, full_page: bool = False) -> None:
    """Screenshots of the page as it is, at desktop then at mobile width (size restored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size or DESKTOP
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(ARTIFACTS / f"{name}-desktop.png"), full_page=full_page)
    page.set_viewport_size(MOBILE)
    page.screenshot(path=str(ARTIFACTS / f"{name}-mobile.png"), full_page=full_page)
    page.set_viewport_size(size)


def idle(page: Any) -> None:
    """Wait until the open session has nothing in flight."""
    page.wait_for_selector("[data-testid=busy]", state="hidden", timeout=IDLE_MS)


def start(page: Any, scenario: str = "the-toll-house") -> str:
    """Start a session from the landing page; returns its id."""
    page.select_option("[data-testid=new-scenario]", scenario)
    page.click("[data-testid=new-start]")
    page.wait_for_url("**/#/play/*")
    sid = str(page.evaluate("location.hash.split('/').pop()"))
    opened(page, sid)
    return sid


def opened(page: Any, sid: str) -> None:
    """Wait until the play view shows session `sid` and nothing is in flight."""
    page.wait_for_selector(f"[data-testid=view-play][data-session='{sid}']:not([hidden])")
    idle(page)


def send(page: Any, **fields: str) -> None:
    """Fill composer fields (`speech=`, `thought=`, `action=`, `hint=`) and send."""
    for name, value in fields.items():
        page.fill(f"[data-testid=c-{name}]", value)
    page.click("[data-testid=c-send]")
    idle(page)


def records(page: Any, turn: int) -> int:
    """Bubbles of one turn in the transcript."""
    count: int = page.locator(f"[data-testid=transcript] li.bubble[data-turn='{turn}']").count()
    return count


def api(page: Any, method: str, path: str, body: Any = None) -> Any:
    """Call the API from inside the page (same origin, the page's own token)."""
    script = """async ([method, path, body]) => {
        const boot = await (await fetch('/bootstrap')).json();
        const init = {method, headers: {'X-Tavern-Token': boot.access_token,
                      'Content-Type': 'application/json'}};
        if (body !== null) init.body = JSON.stringify(body);
        const r = await fetch(path, init);
        return {status: r.status, body: await r.text()};
    }"""
    answer = page.evaluate(script, [method, path, body])
    text = answer["body"]
    return answer["status"], (json.loads(text) if text else None)


def new_session(page: Any, scenario: str = "the-toll-house") -> dict[str, Any]:
    """Create a session through the API (the landing page is not refreshed)."""
    status, body = api(page, "POST", "/sessions", {"scenario_id": scenario})
    assert status == 201, body
    made: dict[str, Any] = body
    return made


def card_png(card: dict[str, Any]) -> bytes:
    """A 1x1 PNG carrying `card` as a Character Card V2 `chara` text chunk."""
    import base64
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    text = b"chara\0" + base64.b64encode(json.dumps(card).encode())
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        + chunk(b"tEXt", text)
        + chunk(b"IDAT", zlib.compress(b"\x00\xc0\x40\x20"))
        + chunk(b"IEND", b"")
    )
