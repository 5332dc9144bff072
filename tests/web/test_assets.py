"""The pages' own files: shipped in the package, nothing from the internet, and data never
turned into markup (the DOM is built with textContent)."""

from __future__ import annotations

import re
from importlib import resources

ASSETS = resources.files("tabled").joinpath("web_assets")


def test_the_page_loads_nothing_from_elsewhere():
    for name in ("index.html", "live.js", "screen.js", "screen.css", "pit.html", "pit.js", "pit.css", "slip.html",
                 "slip.js", "slip.css"):
        text = ASSETS.joinpath(name).read_text()
        assert not re.search(r"(https?:)?//[\w.-]+\.[a-z]{2,}", text), name  # no other host
        assert "@import" not in text and "url(" not in text, name


def test_the_scripts_never_write_markup():
    for name in ("live.js", "screen.js", "pit.js", "slip.js"):
        js = ASSETS.joinpath(name).read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
            assert sink not in js, (name, sink)
        assert "textContent" in js, name
