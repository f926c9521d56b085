"""The live table is patched, not drawn anew (snabbdom, updown/web/static/js/vdom.js), in Debian's
Chromium over a real ``updown serve``: from one frame to the next the elements that stay are the
same elements, so what the player focused keeps its focus (not a copy focused again), the log keeps
where the player scrolled it, and the cards still in the hand are the buttons they were. The bots
wait half a second before each move so that frames come while the player looks. Screenshot
``patch-euchre.png``.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")  # before web_util, which imports it

from server_util import Server  # noqa: E402
from web_util import CHROMIUM_MISSING, SKIP_REASON, browser, click_one, finished, frame_no, new_page, register, shot  # noqa: E402,F401

pytestmark = pytest.mark.skipif(CHROMIUM_MISSING, reason=SKIP_REASON)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A real ``updown serve`` on SQLite whose bots take 0.5 s a move (frames one after another)."""
    tmp = tmp_path_factory.mktemp("web-patch")
    srv = Server(f"sqlite:///{tmp / 'updown.db'}", log=tmp / "server.log", bot_delay=0.5).start()
    yield srv
    srv.stop()


# Remembers the elements as they are now: the page, the log (scrolled to a few lines from its top,
# so not following the newest line), the hand's buttons, and the focus on a greyed card or else the
# "Last trick" button (either stays on the table while the bots play).
MARK = """() => {
  const lines = document.querySelector('.lines');
  lines.scrollTop = Math.min(40, lines.scrollHeight - lines.clientHeight - 40);
  const target = document.querySelector('.hand button.hand-card[aria-disabled="true"]') || document.querySelector('[data-last-toggle]');
  if (target) target.focus();
  window.__kept = {n: document.querySelector('.table-page').dataset.n, page: document.querySelector('.table-page'), lines,
    scroll: lines.scrollTop, focus: target && document.activeElement === target ? target : null,
    cards: Object.fromEntries([...document.querySelectorAll('.hand button.hand-card')].map((b) => [b.dataset.card, b]))};
  return {n: window.__kept.n, scroll: lines.scrollTop, focused: !!window.__kept.focus, cards: Object.keys(window.__kept.cards).length};
}"""

# After the next frame: which of the remembered elements are still the ones in the page, and
# whether something can be played now.
KEPT = """() => {
  const k = window.__kept;
  const lines = document.querySelector('.lines');
  const cards = [...document.querySelectorAll('.hand button.hand-card')];
  return {n: document.querySelector('.table-page').dataset.n, samePage: document.querySelector('.table-page') === k.page,
    sameLines: lines === k.lines, scroll: lines.scrollTop, scrolledAway: k.scroll,
    focusKept: k.focus ? document.activeElement === k.focus : null, focusKey: k.focus && k.focus.dataset.key,
    playable: !!document.querySelector('.table-page [data-action]:not([aria-disabled="true"])'),
    stillInHand: cards.filter((b) => k.cards[b.dataset.card]).length,
    sameButtons: cards.filter((b) => k.cards[b.dataset.card] === b).length};
}"""


def test_elements_focus_and_scroll_survive_frames(server: Server, browser: Any) -> None:
    page: Any = new_page(browser, server.base, width=1100, height=900)
    register(page, "Patchkeeper")
    made = page.context.request.post(server.base + "/api/tables", data=json.dumps(
        {"game": "euchre", "players": 4, "seats": ["me"] + ["bot:greedy"] * 3, "options": {"target": 10}}),
        headers={"Content-Type": "application/json"})
    assert made.ok, made.text()
    page.goto(f"/t/{made.json()['id']}")
    page.wait_for_selector(".hand-card")
    rng = random.Random(5)
    observed: list[tuple[dict[str, Any], dict[str, Any]]] = []
    deadline = time.time() + 150
    while len(observed) < 4 and time.time() < deadline and not finished(page):
        if not click_one(page, rng, prefer=("pass",)):
            page.wait_for_timeout(100)
            continue
        # Only when the log can scroll and the bots are to play (nothing can be played now).
        ready = page.evaluate("() => { const l = document.querySelector('.lines');"
                              " return !!l && l.scrollHeight > l.clientHeight + 100 &&"
                              " !document.querySelector('.table-page [data-action]:not([aria-disabled=\\'true\\'])'); }")
        if not ready:
            continue
        mark = page.evaluate(MARK)
        try:
            page.wait_for_function("n => document.querySelector('.table-page').dataset.n !== n", arg=mark["n"], timeout=4000)
        except Exception:
            continue  # no frame came before it was our turn again
        kept = page.evaluate(KEPT)
        observed.append((mark, kept))
        assert kept["samePage"] and kept["sameLines"], kept
        assert kept["scroll"] == kept["scrolledAway"] > 0, (mark, kept)  # not back at the top, not at the bottom
        # (When the frame makes it our turn, the focus goes on to the first playable card: by design.)
        if mark["focused"] and not kept["playable"]:
            assert kept["focusKept"], f"{mark} {kept}"
        assert kept["sameButtons"] == kept["stillInHand"], kept
    assert len(observed) >= 3, f"only {len(observed)} frames came while the bots played: {observed}"
    assert any(m["focused"] and not k["playable"] for m, k in observed), observed
    assert any(k["stillInHand"] > 0 for _, k in observed), observed
    assert frame_no(page) != ""
    shot(page, "patch-euchre")
    assert page.errors == [], page.errors
