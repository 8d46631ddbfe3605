"""End to end in headless chromium: create, play three turns, whisper, undo, switch language.

Screenshots go to test-artifacts/browser/ (git-ignored).
"""

from __future__ import annotations

from typing import Any

import pytest
from browser_kit import idle, records, send, shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


_idle, _records, _send = idle, records, send


def test_play_whisper_undo_and_language(page: Any) -> None:
    shoot(page, "01-landing")
    page.select_option("[data-testid=new-scenario]", "the-toll-house")
    page.click("[data-testid=new-start]")
    page.wait_for_selector("[data-testid=view-play]:not([hidden])")
    _idle(page)
    assert page.text_content("[data-testid=whose-turn]")

    _send(page, speech="Good evening. Is the ferry still running?")
    assert _records(page, 1) >= 2
    assert page.locator("li.speech.mine").first.text_content()
    _send(page, thought="She is hiding something.", action="I shake the rain off my coat.")
    assert page.locator("li.thought").count() >= 1 and page.locator("li.action").count() >= 1
    page.click("#composer-more summary")
    page.select_option("[data-testid=c-whisper]", index=1)
    _send(page, speech="Don't trust the man with the satchel.")
    assert _records(page, 3) >= 1
    assert page.locator("[data-testid=whisper-tag]").count() >= 1
    shoot(page, "02-three-turns", full_page=True)

    page.click("[data-testid=c-undo]")
    _idle(page)
    expect(page.locator("[data-testid=transcript] li[data-turn='3']")).to_have_count(0)
    assert _records(page, 2) >= 1
    shoot(page, "03-after-undo", full_page=True)

    page.click("[data-testid=c-suggest]")
    _idle(page)
    chips = page.locator("[data-testid=suggestions] .chip")
    if chips.count():
        chips.first.click()
        assert page.input_value("[data-testid=c-speech]") or page.input_value(
            "[data-testid=c-action]"
        )

    page.click("[data-testid=debug-toggle]")
    page.wait_for_selector("[data-testid=debug-drawer]:not([hidden])")
    page.click("[data-testid=debug-optin]")
    page.click("[data-testid=debug-tab-journal]")
    page.wait_for_selector("[data-testid=journal-line]")
    shoot(page, "04-debug-journal")
    page.click("#debug-close")

    page.click("[data-testid=setup-open]")
    page.select_option("[data-testid=s-language]", "pt-BR")
    page.click("[data-testid=s-save]")
    page.wait_for_selector("html[lang=pt-BR]")
    assert page.text_content("[data-testid=c-send]") == "Enviar"
    shoot(page, "05-pt-BR", full_page=True)


def test_landing_fork_and_delete(page: Any) -> None:
    page.click("[data-testid=new-start]")
    page.wait_for_selector("[data-testid=view-play]:not([hidden])")
    _idle(page)
    _send(page, speech="Hello.")
    page.click("[data-testid=home]")
    page.wait_for_selector("[data-testid=session-row]")
    page.click("[data-testid=session-fork]")
    page.wait_for_selector("[data-testid=view-play]:not([hidden])")
    _idle(page)
    assert _records(page, 1) >= 1  # the fork carries the history
    page.click("[data-testid=home]")
    expect(page.locator("[data-testid=session-row]")).to_have_count(2)
    page.on("dialog", lambda dialog: dialog.accept())
    page.locator("[data-testid=session-delete]").first.click()
    expect(page.locator("[data-testid=session-row]")).to_have_count(1)
    shoot(page, "06-landing-after-fork-delete")
