"""End to end: write a new character and a new scenario in the editors, then play it."""

from __future__ import annotations

from typing import Any

import pytest
from browser_kit import shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_write_a_scenario_without_touching_files(page: Any) -> None:
    page.click("[data-testid=nav-editors]")
    page.wait_for_selector("[data-testid=view-editors]:not([hidden])")

    character = {
        "id": "nell-quill",
        "name": "Nell Quill",
        "description_ref": "the clerk with inky cuffs",
        "appearance": "Ink on her cuffs, a pencil behind one ear.",
        "personality": "Dry, exact, kind when nobody looks.",
        "secrets": "She forged the ferry licence.",
        "goals": "Get the ledger back.",
    }
    for name, value in character.items():
        page.fill(f"[data-testid=character-form-{name}]", value)
    page.click("[data-testid=ce-save]")
    expect(page.locator("[data-testid=ce-pick] option[value=nell-quill]")).to_have_count(1)

    page.select_option("[data-testid=se-pick]", "the-toll-house")
    expect(page.locator("[data-testid=scenario-form-id]")).to_have_value("the-toll-house")
    scenario = {
        "id": "the-ink-room",
        "title": "The Ink Room",
        "world": "A registry office after hours; the ledger is missing.",
        "location": "the registry office",
    }
    for name, value in scenario.items():
        page.fill(f"[data-testid=scenario-form-{name}]", value)
    page.click("[data-testid=cast-add]")  # the cast is picked by name
    added = page.locator("[data-testid=cast-row]").last
    added.locator("[data-testid=cast-character]").select_option(label="Nell Quill (nell-quill)")
    page.click("[data-testid=se-save]")
    expect(page.locator("[data-testid=se-pick] option[value=the-ink-room]")).to_have_count(1)
    shoot(page, "07-editors", full_page=True)

    page.click("[data-testid=home]")
    page.wait_for_selector(
        "[data-testid=new-scenario] option[value=the-ink-room]", state="attached"
    )
    page.select_option("[data-testid=new-scenario]", "the-ink-room")
    page.select_option("[data-testid=new-controlled]", "nell-quill")
    page.click("[data-testid=new-start]")
    page.wait_for_selector("[data-testid=view-play]:not([hidden])")
    expect(page.locator("#play-title")).to_have_text("The Ink Room")
    expect(page.locator("[data-testid=cast] li.me")).to_contain_text("Nell Quill")
    page.wait_for_selector("[data-testid=busy]", state="hidden", timeout=30000)
    page.fill("[data-testid=c-speech]", "Who took the ledger?")
    page.click("[data-testid=c-send]")
    page.wait_for_selector("[data-testid=busy]", state="hidden", timeout=30000)
    expect(page.locator("li.speech.mine")).to_contain_text("Who took the ledger?")
