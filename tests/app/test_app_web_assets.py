"""Static guards over the web UI: translations complete, no unsafe DOM or storage APIs."""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "tavern" / "web"
PREFIXES = (
    "nav|busy|landing|play|composer|stage|debug|setup|editor|field|a11y|theme|sessions|turn"
    "|quiet|cast|usage|error|check"
)
KEY = re.compile(rf"""["']((?:{PREFIXES})\.[a-z_]+)["']""")
FORBIDDEN = re.compile(
    r"\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|localStorage|sessionStorage"
    r"|document\.cookie|\beval\(|new Function\("
)


def translation_tables(source: str) -> dict[str, set[str]]:
    """Keys of each language block in i18n.js."""
    en_part, pt_part = source.split('"pt-BR": {', 1)
    return {"en": set(KEY.findall(en_part)), "pt-BR": set(KEY.findall(pt_part))}


def missing_translations(sources: dict[str, str]) -> list[str]:
    """Keys used by the UI (html attributes or JS literals) that a language lacks."""
    tables = translation_tables(sources["i18n.js"])
    used: set[str] = set()
    for name, text in sources.items():
        if name != "i18n.js":
            used |= set(KEY.findall(text))
    problems = [
        f"{lang} lacks {key}" for lang, keys in tables.items() for key in sorted(used - keys)
    ]
    problems += [f"pt-BR lacks {k}" for k in sorted(tables["en"] - tables["pt-BR"])]
    problems += [f"en lacks {k}" for k in sorted(tables["pt-BR"] - tables["en"])]
    return problems


def _code(text: str) -> str:
    """JS without comments (the modules' comments name the APIs they avoid)."""
    return re.sub(r"^\s*//.*$|/\*.*?\*/", "", text, flags=re.MULTILINE | re.DOTALL)


def unsafe_uses(sources: dict[str, str]) -> list[str]:
    """Uses of HTML-string DOM APIs, browser storage or eval in the UI's scripts."""
    sources = {name: _code(text) for name, text in sources.items()}
    return [
        f"{n}: {m.group(0)}"
        for n, t in sources.items()
        if n.endswith(".js")
        for m in FORBIDDEN.finditer(t)
    ]


def _sources() -> dict[str, str]:
    return {
        p.name: p.read_text(encoding="utf-8") for p in WEB.iterdir() if p.suffix in (".js", ".html")
    }


def test_every_interface_string_exists_in_both_languages() -> None:
    sources = _sources()
    assert len(translation_tables(sources["i18n.js"])["en"]) > 50
    assert missing_translations(sources) == []


def test_missing_translation_is_caught() -> None:
    sources = _sources()
    sources["app.js"] += '\nt("composer.planted_missing");\n'
    assert missing_translations(sources) == [
        "en lacks composer.planted_missing",
        "pt-BR lacks composer.planted_missing",
    ]


def test_no_html_injection_storage_or_eval() -> None:
    assert unsafe_uses(_sources()) == []
    planted = {"x.js": "el.innerHTML = text; localStorage.setItem('k', token);"}
    assert len(unsafe_uses(planted)) == 2


def test_modules_are_native_es_modules() -> None:
    index = (WEB / "index.html").read_text()
    assert '<script type="module" src="/web/app.js"></script>' in index
    assert "<script>" not in index and "style=" not in index  # CSP: no inline script or style
    imports = re.findall(r'from "\./([a-z0-9-]+\.js)"', (WEB / "app.js").read_text())
    assert all((WEB / name).exists() for name in imports) and len(imports) >= 8
