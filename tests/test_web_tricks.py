"""Every trick explained, and the last trick (issue 32), in Debian's Chromium over a real
``updown serve``: after a trick the table says why it was won in the terminal's words (the trick
event's line, in the page's language), the cards on the table carry their players' names and the
card that led is marked, and the "last trick" view shows the previous trick (who played what, who
won, why) and still shows it after a new deal has begun. Screenshots ``tricks-*.png``.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")  # before web_util, which imports it

from server_util import SHORT, Server  # noqa: E402
# browser and server are web_util's shared fixtures (module scope: one of each per test module).
from web_util import CHROMIUM_MISSING, SKIP_REASON, browser, click_one, finished, new_page, register, server, \
    shot as full_shot  # noqa: E402,F401

pytestmark = pytest.mark.skipif(CHROMIUM_MISSING, reason=SKIP_REASON)

# What the page holds: the view's deal and trick cards, the log's trick events with their lines, and
# what the felt and the last-trick view show.
STATE = """() => {
  const tc = window.__table; const v = tc && tc.view;
  if (!v) return null;
  const text = (sel) => { const el = document.querySelector(sel); return el ? el.textContent : null; };
  const tricks = [];
  tc.log.forEach((e, i) => { if (e.type === 'trick') tricks.push({deal: e.deal, round: e.round, trick: e.trick, line: tc.lines[i],
    winner: e.winner, seats: e.seats || (e.cards || []).map((x, s) => Array.isArray(x) ? x[0] : s)}); });
  const slots = [...document.querySelectorAll('.trick .slot.full')].map((el) => ({seat: +el.dataset.slot,
    name: el.querySelector('.slot-name') && el.querySelector('.slot-name').textContent, led: !!el.querySelector('.led-mark')}));
  const view = document.querySelector('[data-last-trick-view]');
  const page = document.querySelector('.table-page');
  return {drawn: !!page && page.dataset.n === String(tc.n), deal: v.deal, round: v.round, table: v.table || null, tricks, slots,
    names: tc.table.seats.map((s) => s.name), why: text('.trick-why'), whyTrick: text('[data-trick-why]') && +document.querySelector('[data-trick-why]').dataset.trickWhy,
    last: view && {trick: +view.dataset.lastTrickView, hidden: view.hidden, text: view.textContent,
      why: text('.last-trick .lt-why'), result: text('.last-trick .lt-result'),
      names: [...view.querySelectorAll('.slot-name')].map((x) => x.textContent), led: view.querySelectorAll('.led-mark').length,
      winner: view.querySelectorAll('.card.winner').length}};
}"""


def shot(page: Any, name: str) -> None:
    """A screenshot once no card is on its way (a trick sliding to its winner)."""
    page.wait_for_function("() => document.getAnimations().length === 0")
    full_shot(page, name)


def table_with_bots(page: Any, base: str, game: str, players: int, options: dict[str, Any] | None = None) -> None:
    made = page.context.request.post(base + "/api/tables", data=json.dumps(
        {"game": game, "players": players, "seats": ["me"] + ["bot:greedy"] * (players - 1),
         "options": SHORT[game] if options is None else options}), headers={"Content-Type": "application/json"})
    assert made.ok, made.text()
    page.goto(f"/t/{made.json()['id']}")
    page.wait_for_selector(".hand-card")


def play_until(page: Any, rng: random.Random, done: Any, timeout: float = 90.0) -> dict[str, Any]:
    """Click legal actions (passing in Euchre's bidding) until ``done(state)``; returns that state."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        state = page.evaluate(STATE)
        if state and state["drawn"] and done(state):  # the page is drawn from the view it holds
            return dict(state)
        assert not finished(page), "the game ended first"
        if not click_one(page, rng, prefer=("pass",)):
            page.wait_for_timeout(40)
    raise AssertionError(f"not reached in {timeout} s: {page.evaluate(STATE)}")


def check_names_and_led(state: dict[str, Any], shown: list[str]) -> None:
    """Every card on the table carries its player's name; the card that led (the view's first) is marked."""
    assert state["slots"], state
    names = dict(zip(range(len(shown)), shown))
    for slot in state["slots"]:
        assert slot["name"] == names[slot["seat"]], (slot, shown)
    led = [slot["seat"] for slot in state["slots"] if slot["led"]]
    assert led == [state["table"][0][0]], (led, state["table"])


def as_shown(line: str, state: dict[str, Any], shown: list[str]) -> str:
    """A server line with the bots named as the page names them (in its language)."""
    for name, local in zip(state["names"], shown):
        line = line.replace(name, local)
    return line


def shown_names(page: Any) -> list[str]:
    return list(page.evaluate("() => [...document.querySelectorAll('.felt .seat')].sort((a, b) => a.dataset.seat - b.dataset.seat)"
                              ".map((el) => el.querySelector('.seat-name strong').textContent)"))


def test_euchre_tricks_are_explained_named_and_the_last_one_outlives_the_deal(server: Server, browser: Any) -> None:
    page: Any = new_page(browser, server.base, width=360, height=740)
    register(page, "Trickreader")
    table_with_bots(page, server.base, "euchre", 4, {"target": 10})  # no game ends in its first deal
    rng = random.Random(7)
    names = shown_names(page)

    # A trick in progress with a card on the table: names under the cards, the led card marked.
    state = play_until(page, rng, lambda s: bool(s["table"]))
    check_names_and_led(state, names)
    shot(page, "tricks-euchre-playing")

    # After the first trick, the felt says why it was won: the trick event's line, as in the terminal.
    state = play_until(page, rng, lambda s: bool(s["tricks"]))
    first = state["tricks"][0]
    assert first["line"].startswith("Trick 1:") and " wins with " in first["line"], first
    assert state["whyTrick"] == state["tricks"][-1]["trick"] and state["why"] == state["tricks"][-1]["line"], state
    if state["table"]:
        check_names_and_led(state, names)
    shot(page, "tricks-euchre-why")

    # The last-trick view: closed until asked, then the previous trick with names, led and winner.
    assert state["last"] and state["last"]["hidden"], state["last"]
    page.click("[data-last-toggle]")
    page.wait_for_selector("[data-last-trick-view]:not([hidden])")
    assert page.get_attribute("[data-last-toggle]", "aria-expanded") == "true"
    state = page.evaluate(STATE)
    last, trick = state["last"], state["tricks"][-1]
    assert last["trick"] == trick["trick"] and last["why"] == trick["line"], (last, trick)
    assert last["names"] == [names[s] for s in trick["seats"]], (last["names"], trick["seats"])
    assert last["led"] == 1 and last["winner"] == 1 and last["result"] == f"{names[trick['winner']]} wins"
    shot(page, "tricks-euchre-last-open")

    # A new deal: the felt no longer explains the old deal's trick, but the view (still open) shows
    # the last trick of the deal before.
    deal = state["deal"]
    state = play_until(page, rng, lambda s: s["deal"] > deal and s["tricks"][-1]["deal"] < s["deal"])
    last, trick = state["last"], state["tricks"][-1]
    assert state["why"] is None, state["why"]
    assert last and not last["hidden"] and last["trick"] == trick["trick"], (last, trick)
    assert last["why"] == trick["line"] and f"{names[trick['winner']]} wins" == last["result"]
    assert page.locator("[data-last-trick-view]").is_visible()
    shot(page, "tricks-euchre-last-after-deal")
    assert page.errors == [], page.errors


def test_tricks_are_explained_in_german(server: Server, browser: Any) -> None:
    """UP&DOWN and the Sueca Up&Down in German: the reason is the catalogue's German line, and the
    names and the led mark are there (the Sueca game); UP&DOWN's cards are shown together, so none
    is marked as led."""
    page: Any = new_page(browser, server.base, width=1280, height=800, lang="de")
    register(page, "Stichleser")
    rng = random.Random(3)

    table_with_bots(page, server.base, "updown", 3)
    names = shown_names(page)
    state = play_until(page, rng, lambda s: bool(s["tricks"]) and s["tricks"][-1]["round"] == s["round"])
    line = as_shown(state["tricks"][-1]["line"], state, names)
    assert line.startswith("Stich ") and " wins " not in line and "Gieriger Bot" in line, line
    assert any(word in line for word in ("gewinnt mit", "Pott", "abgelegt")), line
    assert state["why"] == line and page.locator(".trick-why").is_visible()
    # Said once: no short "Stich 1: … gewinnt" beside the line that says it with its reason.
    assert page.locator(".caption .last-result").count() == 0
    assert "Stich" not in (page.inner_text(".caption") if page.locator(".caption").count() else ""), page.inner_text(".felt")
    assert page.locator(".trick .led-mark").count() == 0
    page.click("[data-last-toggle]")
    page.wait_for_selector("[data-last-trick-view]:not([hidden])")
    assert page.inner_text("[data-last-toggle]").startswith("Letzter Stich")
    shot(page, "tricks-updown-de")

    table_with_bots(page, server.base, "updown-sueca", 4)
    names = shown_names(page)

    def in_trick(s: dict[str, Any]) -> bool:
        return bool(s["table"]) and bool(s["tricks"]) and s["tricks"][-1]["deal"] == s["deal"]

    deadline = time.time() + 120
    while time.time() < deadline:  # sitting out is allowed: the bots may play a deal without us
        state = page.evaluate(STATE)
        if state and state["drawn"] and in_trick(state):
            break
        assert not finished(page)
        if not click_one(page, rng, prefer=("play", "done")):
            page.wait_for_timeout(40)
    assert in_trick(state), state
    line = as_shown(state["tricks"][-1]["line"], state, names)
    assert line.startswith("Stich ") and " gewinnt mit " in line, line
    assert state["why"] == line
    check_names_and_led(state, names)
    assert page.locator(".trick .led-mark").first.inner_text() == "ausgespielt"
    shot(page, "tricks-sueca-de")
    assert page.errors == [], page.errors
