"""One browser test per defect of issue 46 (1-5 and 7-9): each failed on the UI before its
fix (the commit that added them names the red run) and passes after it."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from browser_kit import MOBILE, api, idle, new_session, opened, records, send, shoot, start
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def _turns_of(page: Any, sid: str) -> int:
    status, body = api(page, "GET", f"/sessions/{sid}")
    assert status == 200, body
    turns: int = body["turn_number"]
    return turns


def _wait_turn(page: Any, sid: str, turn: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while _turns_of(page, sid) < turn:
        assert time.monotonic() < deadline, f"turn {turn} of {sid} never committed"
        page.wait_for_timeout(200)


def _open(page: Any, sid: str) -> None:
    _, view = api(page, "GET", f"/sessions/{sid}")
    page.evaluate("sid => { location.hash = '#/play/' + sid; }", sid)
    page.wait_for_selector("[data-testid=view-play]:not([hidden])")
    expect(page.locator("#play-title")).to_have_text(view["title"])
    idle(page)
    opened(page, sid)


def test_1_a_turn_lands_in_its_own_session_whatever_is_open(slow_page: Any) -> None:
    page = slow_page
    other = new_session(page, "the-vintners-wake")
    sid = start(page, "the-toll-house")
    page.fill("[data-testid=c-speech]", "Is the ferry running tonight?")
    page.click("[data-testid=c-send]")
    page.wait_for_selector("[data-testid=busy]:not([hidden])")
    _open(page, other["id"])  # switch while the turn runs
    _wait_turn(page, sid, 1)
    page.wait_for_timeout(500)  # the answer reaches the page
    expect(page.locator("#play-title")).to_have_text(other["title"])
    assert records(page, 1) == 0
    assert "Is the ferry running tonight?" not in page.inner_text("[data-testid=transcript]")
    _open(page, sid)
    expect(page.locator("li.speech.mine")).to_contain_text("Is the ferry running tonight?")
    page.fill("[data-testid=c-speech]", "And the landing?")
    page.click("[data-testid=c-send]")
    page.click("[data-testid=home]")  # leave for the landing while it runs: nothing throws
    _wait_turn(page, sid, 2)
    page.wait_for_timeout(500)
    expect(page.locator("[data-testid=view-landing]")).to_be_visible()


def test_2_full_scrollback_with_turn_separators(page: Any) -> None:
    sid = new_session(page)["id"]
    for n in range(15):
        status, body = api(page, "POST", f"/sessions/{sid}/turns", {"speech": f"Line {n}."})
        assert status == 200, body
    _open(page, sid)
    for _ in range(10):
        if records(page, 1):
            break
        page.click("[data-testid=load-earlier]")
        page.wait_for_timeout(300)
    assert records(page, 1) >= 1
    assert "Line 0." in page.inner_text("li.bubble[data-turn='1']")
    expect(page.locator("[data-testid=load-earlier]")).to_be_hidden()  # nothing earlier
    separator = page.locator("[data-testid=turn-sep][data-turn='1']")
    expect(separator).to_contain_text("1")
    expect(separator.locator("[data-testid=story-time]")).to_have_count(1)
    assert page.locator("[data-testid=turn-sep]").count() == 16  # turns 0 to 15
    shoot(page, "d2-scrollback")


@pytest.mark.parametrize("size", ["desktop", "mobile"])
def test_3_a_long_word_never_widens_the_page(page: Any, size: str) -> None:
    if size == "mobile":
        page.set_viewport_size(MOBILE)
    start(page)
    send(page, speech="https://example.org/" + "a" * 3000)
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width
    box = page.locator("[data-testid=c-send]").bounding_box()
    assert box is not None and box["x"] + box["width"] <= width[1]
    shoot(page, f"d3-long-word-{size}")


def test_4_openings_are_director_hints_kept_until_used(page: Any) -> None:
    sid = start(page)
    chips = page.locator("[data-testid=openings] .chip")
    expect(chips).to_have_count(3)
    spark = chips.first.inner_text()
    chips.first.click()
    assert page.input_value("[data-testid=c-hint]") == spark
    assert page.input_value("[data-testid=c-speech]") == ""
    page.click("[data-testid=home]")
    _open(page, sid)
    expect(page.locator("[data-testid=openings] .chip")).to_have_count(3)
    status, journal = api(page, "GET", f"/sessions/{sid}/journal?limit=500")
    calls = [line for line in journal["data"] if line.get("agent") == "openings"]
    assert len(calls) == 1  # the second visit made no model call


def test_5_failures_and_refusals_say_so_in_plain_words(page: Any) -> None:
    start(page)
    send(page, speech="Hello.")
    # a fork and a delete that fail say so
    page.click("[data-testid=home]")
    page.wait_for_selector("[data-testid=session-row]")
    page.route(
        "**/sessions/*/fork*",
        lambda route: route.fulfill(status=500, body='{"detail": "internal error"}'),
    )
    page.click("[data-testid=session-fork]")
    expect(page.locator("[data-testid=toast]")).to_be_visible()
    page.unroute("**/sessions/*/fork*")
    page.route(
        "**/sessions/*",
        lambda route: (
            route.fulfill(status=405, body='{"detail": "Method Not Allowed"}')
            if route.request.method == "DELETE"
            else route.continue_()
        ),
    )
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("[data-testid=session-delete]")
    toast = page.locator("[data-testid=toast]")
    expect(toast).to_be_visible()
    expect(toast).not_to_contain_text("Method Not Allowed")
    page.unroute("**/sessions/*")


def test_5_enter_in_a_settings_field_saves(page: Any) -> None:
    page.click("[data-testid=setup-open]")
    page.fill("[data-testid=s-model]", "fake-by-enter")
    page.press("[data-testid=s-model]", "Enter")
    expect(page.locator("[data-testid=setup]")).to_be_hidden()
    _, config = api(page, "GET", "/config")
    assert config["providers"]["fake"]["model"] == "fake-by-enter"


def test_5_a_turn_that_shows_nothing_is_shown_as_such(page: Any) -> None:
    start(page)

    def nothing_seen(route: Any) -> None:
        response = route.fetch()
        text = response.text()
        frame = next(f for f in text.split("\n\n") if f.startswith("event: result"))
        result = json.loads(frame.split("data: ", 1)[1])
        result["records"] = []  # the character perceived nothing of this beat
        body = f"event: result\ndata: {json.dumps(result)}\n\n"
        route.fulfill(status=200, headers={"Content-Type": "text/event-stream"}, body=body)

    page.route("**/turns*", nothing_seen)
    page.click("[data-testid=c-skip]")
    idle(page)
    expect(page.locator("[data-testid=turn-sep][data-turn='1']")).to_have_count(1)
    expect(page.locator("[data-testid=quiet-turn]")).to_have_count(1)


def test_5_undo_in_a_stale_tab_removes_nothing_it_never_showed(page: Any) -> None:
    sid = start(page)
    second = page.context.new_page()
    second.goto(page.url)
    second.wait_for_selector("body[data-ready=true]")
    idle(second)
    send(page, speech="Said in the first tab.")
    second.click("[data-testid=c-undo]")
    expect(second.locator("[data-testid=toast]")).to_be_visible()
    assert _turns_of(page, sid) == 1
    expect(second.locator("li.speech.mine")).to_contain_text("Said in the first tab.")
    second.close()


def test_5_no_raw_validation_text_reaches_the_user(page: Any) -> None:
    start(page)
    page.fill("[data-testid=c-speech]", "x" * 4001)
    page.click("[data-testid=c-send]")
    toast = page.locator("[data-testid=toast]")
    expect(toast).to_be_visible()
    expect(toast).not_to_contain_text("String should have")
    expect(toast).to_contain_text("4000")


def test_7_debug_spoilers_are_an_explicit_opt_in(page: Any) -> None:
    start(page)
    page.click("[data-testid=debug-toggle]")
    page.wait_for_selector("[data-testid=debug-drawer]:not([hidden])")
    expect(page.locator("[data-testid=debug-optin]")).to_be_visible()
    assert page.locator("[data-testid=debug-body] pre").count() == 0  # nothing shown yet
    page.click("[data-testid=debug-optin]")
    expect(page.locator("[data-testid=debug-body] pre").first).to_be_visible()
    shoot(page, "d7-debug-opt-in")


def test_8_the_scenario_editor_links_zones(page: Any) -> None:
    page.click("[data-testid=nav-editors]")
    page.wait_for_selector("[data-testid=view-editors]:not([hidden])")
    page.fill("[data-testid=scenario-form-id]", "two-rooms")
    page.fill("[data-testid=scenario-form-title]", "Two rooms")
    page.fill("[data-testid=scenario-form-world]", "A house with a kitchen and a yard.")
    page.fill("[data-testid=scenario-form-location]", "the house")
    for zone, label in (("kitchen", "the kitchen"), ("yard", "the yard")):
        page.click("[data-testid=zone-add]")
        row = page.locator("[data-testid=zone-row]").last
        row.locator("[data-testid=zone-id]").fill(zone)
        row.locator("[data-testid=zone-label]").fill(label)
    page.click("[data-testid=link-add]")
    link = page.locator("[data-testid=link-row]").last
    link.locator("[data-testid=link-source]").select_option("kitchen")
    link.locator("[data-testid=link-target]").select_option("yard")
    link.locator("[data-testid=link-sound]").select_option("sealed")
    cast = page.locator("[data-testid=cast-row]")
    expect(cast).to_have_count(1)
    cast.first.locator("[data-testid=cast-character]").select_option(index=1)
    page.click("[data-testid=se-save]")
    expect(page.locator("[data-testid=se-pick] option[value=two-rooms]")).to_have_count(1)
    _, saved = api(page, "GET", "/scenarios/two-rooms")
    links = saved["scenario"]["scene"]["links"]
    assert links == [{"source": "kitchen", "target": "yard", "sound": "sealed", "sight": "open"}]
    shoot(page, "d8-zone-links", full_page=True)


def test_8_forcing_someone_out_of_earshot_is_explained(page: Any) -> None:
    start(page, "the-vintners-wake")
    options = page.locator("[data-testid=c-force] option")
    texts = [options.nth(i).text_content() or "" for i in range(options.count())]
    assert any("earshot" in t for t in texts), texts
    expect(page.locator("[data-testid=cast] [data-testid=cast-hearing]").first).to_be_visible()


def test_9_keyboard_focus_and_live_regions(page: Any) -> None:
    start(page)
    send(page, speech="First.")
    focused = page.evaluate("document.activeElement && document.activeElement.dataset.testid")
    assert focused == "c-speech"
    page.fill("[data-testid=c-action]", "I knock twice.")
    page.press("[data-testid=c-action]", "Control+Enter")
    idle(page)
    assert records(page, 2) >= 1
    assert page.get_attribute("[data-testid=transcript]", "aria-live") == "polite"
    assert page.get_attribute("[data-testid=busy]", "role") == "status"
    for testid in ("setup-open", "theme-toggle"):
        assert page.get_attribute(f"[data-testid={testid}]", "aria-label")


def test_9_light_theme_and_mobile_composer_above_the_fold(page: Any) -> None:
    page.emulate_media(color_scheme="light")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    red, green, blue = (int(x) for x in background[background.index("(") + 1 : -1].split(",")[:3])
    assert min(red, green, blue) > 180, background
    page.set_viewport_size(MOBILE)
    start(page)
    box = page.locator("[data-testid=c-send]").bounding_box()
    assert box is not None and box["y"] + box["height"] <= MOBILE["height"], box
    shoot(page, "d9-light-mobile")
