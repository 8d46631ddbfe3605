"""WCAG contrast of the web UI's colours, computed from style.css for both themes.

Every pair of a text colour and a background it is drawn on must reach 4.5:1 (WCAG AA for
body text), the error toast included, and so must each character's tinted name at every hue
and the initial on its picture's circle. Negative controls: the toast as it was (white on
#e06c5c, 3.25:1) and a planted pale muted colour are caught.
"""

from __future__ import annotations

import colorsys
import re
from pathlib import Path

import pytest

CSS = Path(__file__).resolve().parents[2] / "tavern" / "web" / "style.css"
AA = 4.5
SURFACES = ("bg", "panel", "raised")
BUBBLES = ("speech", "thought", "action", "narr")
PAIRS: list[tuple[str, tuple[str, ...]]] = [
    ("ink", SURFACES + BUBBLES),
    ("muted", SURFACES + ("narr",)),
    ("accent", SURFACES + BUBBLES),
    ("error", SURFACES),
    ("warn", SURFACES),
    ("accent-ink", ("accent",)),
    ("toast-ink", ("toast-bg",)),
    ("ok-ink", ("ok-bg",)),
]
"""(text colour, the backgrounds it is drawn on) as style.css uses them."""


def palettes(css: str) -> dict[str, dict[str, str]]:
    """The custom properties of the dark (`:root`) and the two light blocks."""

    def block(selector: str) -> dict[str, str]:
        start = css.index(selector)
        body = css[css.index("{", start) + 1 : css.index("}", start)]
        return dict(re.findall(r"--([a-z-]+):\s*([^;]+);", body))

    return {
        "dark": block(":root {"),
        "light-system": block(':root:not([data-theme="dark"])'),
        "light-chosen": block(':root[data-theme="light"]'),
    }


def luminance(hex_colour: str) -> float:
    """Relative luminance of `#rrggbb` (WCAG 2.x)."""
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def ratio(a: str, b: str) -> float:
    """WCAG contrast ratio of two `#rrggbb` colours.

    >>> round(ratio("#ffffff", "#e06c5c"), 2)
    3.25
    """
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def hsl(hue: float, saturation: float, lightness: float) -> str:
    r, g, b = colorsys.hls_to_rgb(hue / 360, lightness, saturation)
    return "#{:02x}{:02x}{:02x}".format(*(round(c * 255) for c in (r, g, b)))


def _percent(value: str) -> float:
    return float(value.strip().rstrip("%")) / 100


def low_contrast(palette: dict[str, str]) -> list[str]:
    """Every pair under AA in a palette: plain pairs, then tinted names at each hue."""
    found = []
    for text, grounds in PAIRS:
        for ground in grounds:
            value = ratio(palette[text], palette[ground])
            if value < AA:
                found.append(f"{text} on {ground}: {value:.2f}")
    saturation, lightness = _percent(palette["tint-s"]), _percent(palette["tint-l"])
    for hue in range(360):
        name = hsl(hue, saturation, lightness)
        for ground in SURFACES + BUBBLES:
            value = ratio(name, palette[ground])
            if value < AA:
                found.append(f"name at hue {hue} on {ground}: {value:.2f}")
    return found


def avatar_circle(css: str) -> tuple[float, float]:
    """Saturation and lightness of the circle behind a character's initial."""
    rule = re.search(r"\.avatar \{[^}]*background: hsl\(var\(--hue, \d+\) (\d+)% (\d+)%\)", css)
    assert rule is not None
    return int(rule.group(1)) / 100, int(rule.group(2)) / 100


def test_both_themes_reach_aa_everywhere() -> None:
    css = CSS.read_text()
    found = palettes(css)
    assert found["light-system"] == found["light-chosen"]  # one light palette, written twice
    assert luminance(found["light-system"]["bg"]) > 0.7 > 0.05 > luminance(found["dark"]["bg"])
    for name, palette in found.items():
        assert low_contrast(palette) == [], name
    toast = ratio(found["dark"]["toast-ink"], found["dark"]["toast-bg"])
    assert toast >= AA, toast
    saturation, lightness = avatar_circle(css)
    worst = min(ratio("#ffffff", hsl(h, saturation, lightness)) for h in range(360))
    assert worst >= AA, worst


def test_negative_control_the_old_toast_and_a_pale_muted_are_caught() -> None:
    palette = palettes(CSS.read_text())["dark"]
    old_toast = dict(palette, **{"toast-bg": "#e06c5c"})
    assert low_contrast(old_toast) == ["toast-ink on toast-bg: 3.25"]
    pale = dict(palette, muted="#6b6152")
    assert any(problem.startswith("muted on panel") for problem in low_contrast(pale))
    with pytest.raises(AssertionError):
        assert ratio("#ffffff", hsl(60, 0.45, 0.4)) >= AA  # a circle too light for white
