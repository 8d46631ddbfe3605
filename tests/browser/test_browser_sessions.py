"""The session list: whom you play, rename, fork marker, search and sort."""

from __future__ import annotations

from typing import Any

import pytest
from browser_kit import api, new_session, shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def _titles(page: Any) -> list[str]:
    titles: list[str] = page.locator("[data-testid=session-title]").all_inner_texts()
    return titles


def test_rename_whom_you_play_fork_marker_search_and_sort(page: Any) -> None:
    toll = new_session(page, "the-toll-house")
    wake = new_session(page, "the-vintners-wake")
    for _ in range(2):
        api(page, "POST", f"/sessions/{wake['id']}/turns", {"speech": "Hello."})
    status, fork = api(page, "POST", f"/sessions/{wake['id']}/fork?turn=1")
    assert status == 201
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    rows = page.locator("[data-testid=session-row]")
    expect(rows).to_have_count(3)
    me = next(c["name"] for c in toll["cast"] if c["controlled"])
    row = page.locator(f"[data-testid=session-row][data-id='{toll['id']}']")
    expect(row).to_contain_text(f"you play {me}")
    forked = page.locator(f"[data-testid=session-row][data-id='{fork['id']}']")
    expect(forked.locator("[data-testid=fork-mark]")).to_contain_text(
        f"from turn 1 of {wake['title']}"
    )
    row.locator("[data-testid=session-rename]").click()
    page.fill("[data-testid=session-name]", "Aaa rainy night")
    page.click("[data-testid=session-name-save]")
    expect(row.locator("[data-testid=session-title]")).to_have_text("Aaa rainy night")
    page.select_option("[data-testid=session-sort]", "title")
    assert _titles(page)[0] == "Aaa rainy night"
    page.select_option("[data-testid=session-sort]", "turns")
    expect(rows.first).to_have_attribute("data-id", wake["id"])  # two turns played
    page.fill("[data-testid=session-search]", "rainy")
    expect(rows).to_have_count(1)
    page.fill("[data-testid=session-search]", me.split()[0].lower())
    expect(rows).to_have_count(1)
    page.fill("[data-testid=session-search]", "no such words")
    expect(rows).to_have_count(0)
    expect(page.locator("#sessions-none")).to_be_visible()
    page.fill("[data-testid=session-search]", "")
    shoot(page, "09-session-list")
