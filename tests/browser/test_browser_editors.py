"""End to end: write a new character and a new scenario in the editors, then play it."""

from __future__ import annotations

from typing import Any

import pytest
from browser_kit import api, card_png, opened, shoot
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


CARD = {
    "spec": "chara_card_v2",
    "spec_version": "2.0",
    "data": {
        "name": "Mara Voss",
        "description": "{{char}} keeps the ferry ledger.",
        "personality": "dry, exact",
        "first_mes": "You're late.",
        "mes_example": "<START>{{char}}: Hm.",
    },
}


def test_import_a_png_card_and_save_it_with_its_picture(page: Any) -> None:
    page.click("[data-testid=nav-editors]")
    page.wait_for_selector("[data-testid=view-editors]:not([hidden])")
    page.set_input_files(
        "[data-testid=ce-import]",
        files=[{"name": "mara.png", "mimeType": "image/png", "buffer": card_png(CARD)}],
    )
    report = page.locator("[data-testid=ce-report]")
    expect(report).to_contain_text("Character Card V2 (PNG)")
    expect(report).to_contain_text("first_mes")  # says what was dropped
    expect(page.locator("[data-testid=character-form-name]")).to_have_value("Mara Voss")
    personality = page.input_value("[data-testid=character-form-personality]")
    assert personality.startswith("Mara Voss keeps the ferry ledger.")
    _, missing = api(page, "GET", "/characters/mara-voss")
    assert missing is not None and "character" not in missing  # a draft, not saved
    expect(page.locator("#ce-avatar-preview img")).to_have_count(1)
    page.fill("[data-testid=character-form-appearance]", "Grey shawl, ink on her cuffs.")
    page.click("[data-testid=ce-save]")
    expect(page.locator("[data-testid=ce-pick] option[value=mara-voss]")).to_have_count(1)
    _, saved = api(page, "GET", "/characters/mara-voss")
    assert saved["avatar"] is True and saved["character"]["body"]["appearance"]
    expect(page.locator("[data-testid=ce-export]")).to_have_attribute(
        "href", "/characters/mara-voss/export"
    )
    shoot(page, "08-card-import", full_page=True)


def test_problems_show_beside_their_fields_in_plain_words(page: Any) -> None:
    page.click("[data-testid=nav-editors]")
    page.wait_for_selector("[data-testid=view-editors]:not([hidden])")
    page.fill("[data-testid=scenario-form-id]", "Bad Id")
    page.click("[data-testid=se-save]")
    expect(page.locator("[data-testid=err-id]").first).to_contain_text("lowercase letters")
    expect(page.locator("[data-testid=err-title]")).to_have_text("Needed.")
    expect(page.locator("[data-testid=toast]")).to_contain_text("Fix the fields")
    page.fill("[data-testid=character-form-id]", "nobody")
    page.click("[data-testid=ce-save]")
    expect(page.locator("#character-form [data-testid=err-name]")).to_have_text("Needed.")
    assert "^[a-z" not in page.inner_text("[data-testid=view-editors]")  # never a pattern
    _, listed = api(page, "GET", "/characters")
    assert "nobody" not in {e["character"]["id"] for e in listed["data"]}


def test_a_character_picture_shows_in_the_cast_panel(page: Any) -> None:
    """The optional avatar image: a card's picture, saved, is its face in play; the others
    keep their coloured initial."""
    page.click("[data-testid=nav-editors]")
    page.wait_for_selector("[data-testid=view-editors]:not([hidden])")
    page.set_input_files(
        "[data-testid=ce-import]",
        files=[{"name": "mara.png", "mimeType": "image/png", "buffer": card_png(CARD)}],
    )
    page.fill("[data-testid=character-form-appearance]", "Grey shawl, ink on her cuffs.")
    page.click("[data-testid=ce-save]")
    expect(page.locator("[data-testid=ce-pick] option[value=mara-voss]")).to_have_count(1)
    page.select_option("[data-testid=se-pick]", "the-toll-house")
    expect(page.locator("[data-testid=scenario-form-id]")).to_have_value("the-toll-house")
    page.fill("[data-testid=scenario-form-id]", "the-ledger-room")
    page.fill("[data-testid=scenario-form-title]", "The Ledger Room")
    page.click("[data-testid=cast-add]")
    added = page.locator("[data-testid=cast-row]").last
    added.locator("[data-testid=cast-character]").select_option(label="Mara Voss (mara-voss)")
    page.click("[data-testid=se-save]")
    expect(page.locator("[data-testid=se-pick] option[value=the-ledger-room]")).to_have_count(1)
    page.click("[data-testid=home]")
    page.wait_for_selector(
        "[data-testid=new-scenario] option[value=the-ledger-room]", state="attached"
    )
    page.select_option("[data-testid=new-scenario]", "the-ledger-room")
    page.click("[data-testid=new-start]")
    page.wait_for_selector("[data-testid=view-play]:not([hidden])")
    cast = page.locator("[data-testid=cast] li")
    mara = cast.filter(has_text="Mara Voss")
    expect(mara.locator(".avatar img")).to_have_count(1)
    width = mara.locator(".avatar img").evaluate("img => img.decode().then(() => img.naturalWidth)")
    assert width == 1  # the card's own 1x1 picture, served and decoded
    expect(cast.locator(".avatar img")).to_have_count(1)  # nobody else has a picture
    shoot(page, "09-cast-picture")


def test_import_a_json_v3_card_as_a_draft(page: Any) -> None:
    """The card formats users have include JSON files; a V3 card's nickname is its name."""
    import json

    fields = {**CARD["data"], "name": "Mara Voss-Ilse", "nickname": "Mara Voss"}
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": fields}
    page.click("[data-testid=nav-editors]")
    page.wait_for_selector("[data-testid=view-editors]:not([hidden])")
    page.set_input_files(
        "[data-testid=ce-import]",
        files=[{"name": "mara.json", "mimeType": "application/json",
                "buffer": json.dumps(card).encode()}],
    )  # fmt: skip
    report = page.locator("[data-testid=ce-report]")
    expect(report).to_contain_text("Character Card V3 (JSON)")
    expect(report).to_contain_text("first_mes")  # says what was dropped
    expect(page.locator("[data-testid=character-form-name]")).to_have_value("Mara Voss")
    expect(page.locator("#ce-avatar-preview img")).to_have_count(0)  # a JSON card has none
    _, missing = api(page, "GET", "/characters/mara-voss")
    assert missing is not None and "character" not in missing  # a draft, not saved


def test_play_this_scenario_and_export_it(page: Any) -> None:
    page.click("[data-testid=nav-editors]")
    page.wait_for_selector("[data-testid=view-editors]:not([hidden])")
    page.select_option("[data-testid=se-pick]", "the-vintners-wake")
    expect(page.locator("[data-testid=se-export]")).to_have_attribute(
        "href", "/scenarios/the-vintners-wake/export"
    )
    _, bundle = api(page, "GET", "/scenarios/the-vintners-wake/export")
    assert bundle["format"] == "tavern-scenario" and len(bundle["characters"]) == 5
    page.click("[data-testid=se-play]")
    page.wait_for_url("**/#/play/*")
    sid = str(page.evaluate("location.hash.split('/').pop()"))
    opened(page, sid)
    expect(page.locator("#play-title")).to_have_text(bundle["scenario"]["title"])
