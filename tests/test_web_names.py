"""A player's name under the cards on the table is whole, however long one word of it is, in
Debian's Chromium over a real ``updown serve``: a one-word name of 24 characters (the longest a name
may be) breaks inside the word under its card and is never cut (it was cut after two lines, ending
in "…"), on a phone and on a desktop, both under the trick and in the "Last trick" view.
Screenshots ``names-long-*.png``.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")  # before web_util, which imports it

from server_util import Server  # noqa: E402
# browser and server are web_util's shared fixtures (module scope: one of each per test module).
from web_util import CHROMIUM_MISSING, SKIP_REASON, browser, click_one, finished, new_page, register, server, \
    shot  # noqa: E402,F401

pytestmark = pytest.mark.skipif(CHROMIUM_MISSING, reason=SKIP_REASON)

LONG = "Wilhelmwolfgangwmozartww"  # 24 characters, one word
assert len(LONG) == 24

# The name under each card of seat 0 (ours) on the felt and in the last-trick view: its text, title,
# how many lines it takes, and whether any of it is hidden or reaches past its card's column.
NAME = """() => [...document.querySelectorAll('.trick [data-slot="0"] .slot-name, .last-trick .lt-slot .slot-name')]
  .filter((el) => el.textContent.startsWith('Wilhelm') && el.getBoundingClientRect().width > 0).map((el) => {
    const r = el.getBoundingClientRect(); const box = el.parentElement.getBoundingClientRect();
    const text = document.createRange(); text.selectNodeContents(el); const t = text.getBoundingClientRect();
    const line = parseFloat(getComputedStyle(el).lineHeight);
    return {where: el.closest('.last-trick') ? 'last' : 'trick', text: el.textContent, title: el.title,
      lines: Math.round(r.height / line), hidden: el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1,
      outside: t.left < box.left - 1 || t.right > box.right + 1 || t.bottom > r.bottom + 1};
  })"""


def test_a_long_one_word_name_is_whole_under_its_card(server: Server, browser: Any) -> None:
    page: Any = new_page(browser, server.base, width=360, height=740)
    register(page, LONG)
    made = page.context.request.post(server.base + "/api/tables", data=json.dumps(
        {"game": "euchre", "players": 4, "seats": ["me"] + ["bot:greedy"] * 3, "options": {"target": 10}}),
        headers={"Content-Type": "application/json"})
    assert made.ok, made.text()
    page.goto(f"/t/{made.json()['id']}")
    page.wait_for_selector(".hand-card")
    rng = random.Random(11)

    # Our card on the table after a first trick (so the last-trick view has our name too); then the
    # table stops listening, in the same turn of the page's script, so the felt stays as it is.
    deadline = time.time() + 90
    while time.time() < deadline:
        assert not finished(page), "the game ended first"
        if page.evaluate("() => { const ok = !!document.querySelector('[data-last-toggle]') &&"
                         " !!document.querySelector('.trick [data-slot=\"0\"] .slot-name');"
                         " if (ok) window.__table.stop(); return ok; }"):
            break
        if not click_one(page, rng, prefer=("pass",)):
            page.wait_for_timeout(40)
    else:
        raise AssertionError("our card was never on the table after a first trick")
    page.click("[data-last-toggle]")
    page.wait_for_selector("[data-last-trick-view]:not([hidden])")

    for width, height in ((360, 740), (1280, 900)):
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function("() => document.getAnimations().length === 0")
        names = page.evaluate(NAME)
        assert {n["where"] for n in names} == {"trick", "last"}, names
        for n in names:
            assert n["text"] == LONG and n["title"] == LONG, n
            assert not n["hidden"] and not n["outside"], (width, n)
            assert n["lines"] >= 2, (width, n)  # broken inside the word: it is wider than the card
        shot(page, f"names-long-{width}")
    assert page.errors == [], page.errors
