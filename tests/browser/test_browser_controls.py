"""The per-message controls, footers and cast panel of the play view: regenerate and flip
between versions, edit the last input and re-run it, copy a line, fork from a turn."""

from __future__ import annotations

from typing import Any

import pytest
from browser_kit import api, idle, opened, send, shoot, start
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def _turn_text(page: Any, turn: int) -> str:
    texts: list[str] = page.locator(f"li.bubble[data-turn='{turn}'] .text").all_inner_texts()
    return "\n".join(texts)


def test_regenerate_keeps_versions_and_flips_between_them(page: Any) -> None:
    sid = start(page)
    send(page, speech="Is the ferry still running?")
    first = _turn_text(page, 1)
    expect(page.locator("[data-testid=variant-label]")).to_have_count(0)
    page.click("[data-testid=regenerate]")
    idle(page)
    label = page.locator("[data-testid=variant-label]")
    expect(label).to_have_text("version 2 of 2")
    second = _turn_text(page, 1)
    assert second != first and "Is the ferry still running?" in second
    page.click("[data-testid=variant-prev]")
    idle(page)
    expect(label).to_have_text("version 1 of 2")
    assert _turn_text(page, 1) == first
    assert page.locator("[data-testid=turn-sep]").count() == 2  # still turns 0 and 1
    _, listed = api(page, "GET", f"/sessions/{sid}/variants")
    assert [v["committed"] for v in listed["data"]] == [True, False]
    shoot(page, "controls-versions")


def test_edit_the_last_input_and_run_it_again(page: Any) -> None:
    start(page)
    send(page, speech="Good evening.")
    page.click("[data-testid=edit-last]")
    expect(page.locator("[data-testid=c-editing]")).to_be_visible()
    assert page.input_value("[data-testid=c-speech]") == "Good evening."
    send(page, speech="Good evening. Who keeps the ferry?")
    expect(page.locator("[data-testid=c-editing]")).to_be_hidden()
    expect(page.locator("li.speech.mine[data-turn='1']")).to_contain_text("Who keeps the ferry?")
    expect(page.locator("[data-testid=variant-label]")).to_have_text("version 2 of 2")
    assert page.locator("[data-testid=turn-sep]").count() == 2


def test_copy_a_line(page: Any) -> None:
    start(page)
    send(page, speech="Copy me exactly.")
    page.locator("li.speech.mine [data-testid=copy-line]").first.click()
    expect(page.locator("[data-testid=toast]")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == "Copy me exactly."


def test_fork_from_an_earlier_turn(page: Any) -> None:
    sid = start(page)
    send(page, speech="One.")
    send(page, speech="Two.")
    page.click("[data-testid=turn-sep][data-turn='1'] [data-testid=fork-here]")
    page.wait_for_url(lambda url: "#/play/" in url and sid not in url)
    forked = str(page.evaluate("location.hash.split('/').pop()"))
    assert forked != sid
    opened(page, forked)
    expect(page.locator("[data-testid=turn-sep][data-turn='2']")).to_have_count(0)
    expect(page.locator("li.speech.mine .text")).to_have_text(["One."])
    page.click("[data-testid=home]")
    mark = page.locator(f"[data-testid=session-row][data-id='{forked}'] [data-testid=fork-mark]")
    expect(mark).to_contain_text("from turn 1")


def test_footers_and_the_cast_panel(page: Any) -> None:
    start(page, "the-vintners-wake")
    send(page, speech="Who lit the lamps?")
    expect(
        page.locator("[data-testid=turn-sep][data-turn='1'] [data-testid=turn-usage]")
    ).to_contain_text("tokens")
    expect(page.locator("[data-testid=session-usage]")).to_contain_text("model calls")
    hearing = page.locator("[data-testid=cast] [data-testid=cast-hearing]").all_inner_texts()
    assert "out of earshot" in hearing and "hears you" in hearing
    hues = page.locator("[data-testid=cast] .avatar").evaluate_all(
        "els => els.map(e => e.style.getPropertyValue('--hue'))"
    )
    assert len(set(hues)) == len(hues) > 1  # a colour per character
    shoot(page, "controls-footer-cast")


def test_compact_and_restore_from_the_session_panel(page: Any) -> None:
    status, made = api(
        page,
        "POST",
        "/sessions",
        {"scenario_id": "the-toll-house", "compaction": {"retention_turns": 1}},
    )
    assert status == 201, made
    sid = made["id"]
    page.evaluate(f"location.hash = '#/play/{sid}'")
    opened(page, sid)
    send(page, speech="One.")
    send(page, speech="Two.")
    page.click("[data-testid=play-compact]")
    idle(page)
    expect(page.locator("[data-testid=toast]")).to_contain_text("Turns up to 1")
    expect(page.locator("li.speech.mine .text")).to_have_text(["Two."])
    page.click("[data-testid=play-restore]")
    idle(page)
    expect(page.locator("[data-testid=toast]")).to_contain_text("are back")
    expect(page.locator("li.speech.mine .text")).to_have_text(["One.", "Two."])


def test_compaction_settings_percent_and_the_compacted_line(page: Any) -> None:
    sid = start(page)
    expect(page.locator("[data-testid=compaction-auto]")).not_to_be_checked()
    page.check("[data-testid=compaction-auto]")
    page.fill("[data-testid=compaction-retention]", "1")
    page.click("[data-testid=compaction-save]")
    idle(page)
    expect(page.locator("[data-testid=toast]")).to_contain_text("Compaction settings saved")
    _, view = api(page, "GET", f"/sessions/{sid}")
    assert view["compaction"]["auto"] is True and view["compaction"]["retention_turns"] == 1
    send(page, speech="One.")
    send(page, speech="Two.")
    expect(page.locator("[data-testid=compacted-turns]")).to_have_count(0)
    # Every percentage the busy line shows while the compaction runs, in order.
    page.evaluate(
        """() => {
        window.percents = [];
        const el = document.getElementById("busy-percent");
        new MutationObserver(() => { if (!el.hidden) window.percents.push(el.textContent); })
          .observe(el, { childList: true, characterData: true, subtree: true, attributes: true });
    }"""
    )
    page.click("[data-testid=play-compact]")  # no retention given: the session's (1)
    idle(page)
    expect(page.locator("[data-testid=toast]")).to_contain_text("Turns up to 1")
    percents = [int(p.rstrip("%")) for p in page.evaluate("window.percents")]
    assert percents and percents == sorted(percents) and percents[-1] == 100
    line = page.locator("[data-testid=compacted-turns]")
    expect(line).to_contain_text("Turns 0–1 are compacted")
    _, shown = api(page, "GET", f"/sessions/{sid}/transcript")
    expect(page.locator("[data-testid=compacted-summary]")).to_have_text(
        shown["compacted"]["summary"]
    )
    expect(page.locator("li.speech.mine .text")).to_have_text(["Two."])
    shoot(page, "controls-compacted")
    page.click("[data-testid=play-restore]")
    idle(page)
    expect(page.locator("[data-testid=compacted-turns]")).to_have_count(0)


def test_footers_show_cost_and_cache_when_the_provider_reports_them(page: Any) -> None:
    """The fake has no price and no cache: its footers say neither. A priced, cached
    provider's figures (planted in the usage answer) are shown per turn and in total."""
    start(page, "the-vintners-wake")
    send(page, speech="Who lit the lamps?")
    footer = page.locator("[data-testid=turn-sep][data-turn='1'] [data-testid=turn-usage]")
    expect(footer).to_contain_text("tokens")
    assert "$" not in (footer.text_content() or "")  # control: no price, no cost shown

    def priced(route: Any) -> None:
        body = route.fetch().json()
        for figures in [*body["turns"], body["total"]]:
            figures.update(cost_usd=0.0123, cache_hit_share=0.5)
        route.fulfill(json=body)

    page.route("**/sessions/*/usage", priced)
    send(page, speech="And who will put them out?")
    expect(footer).to_contain_text("$0.0123")
    expect(footer).to_contain_text("cache 50%")
    expect(page.locator("[data-testid=session-usage]")).to_contain_text("$0.0123")
    page.unroute("**/sessions/*/usage")
