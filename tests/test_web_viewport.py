"""Hand and trick on one screen (issue 32): for every game and every player count it allows, at
360 × 740 (a phone) and at 1280 × 800 (a desktop), when it is the player's turn to play a card,
the cards on the table (the trick; Up or Down?'s display) and the player's hand are both inside
the viewport together, nothing scrolls sideways, the names under the cards on the table are
whole (two lines at most) and Up or Down?'s empty columns share one line. In Debian's Chromium over a real
``updown serve``; screenshots ``viewport-<game>-<players>-<phone|desktop>.png`` (the viewport, as
the player sees it).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")  # before web_util, which imports it

from server_util import SHORT, Server  # noqa: E402
# server is web_util's shared fixture (module scope: one per test module).
from web_util import CHROMIUM, CHROMIUM_ARGS, CHROMIUM_MISSING, SHOTS, SKIP_REASON, new_page, play_until, \
    register, server, sideways  # noqa: E402,F401

pytestmark = pytest.mark.skipif(CHROMIUM_MISSING, reason=SKIP_REASON)

VIEWPORTS = {"phone": {"width": 360, "height": 740}, "desktop": {"width": 1280, "height": 800}}
PLAY_PHASE = {"updown": "choose", "euchre": "play", "updown-sueca": "trick", "up-or-down": "play"}
COUNTS = {"updown": (2, 3, 4), "euchre": (4,), "updown-sueca": (4,), "up-or-down": (2, 3, 4, 5, 6)}
CASES = [(game, n) for game, counts in COUNTS.items() for n in counts]
# Euchre to its usual 10 points, not SHORT's 3: the greedy partner goes alone (since it goes alone
# at 7), the player then sits the deal out, and a lone march (4 points) ended a game to 3 before the
# player had played a card.
OPTIONS = {**SHORT, "euchre": {}}
# What "the cards on the table" are: the trick, or Up or Down?'s display (the ring).
TRICK = {"up-or-down": ".ring"}
# The hand scrolled into view (its bottom at the bottom of the screen, as a player holds a phone),
# then where the hand and the cards on the table are.
MEASURE = """trick => {
  document.querySelector('.hand-wrap').scrollIntoView({block: 'end'});
  const box = (el) => { const r = el.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; };
  return [box(document.querySelector('.hand-wrap')), box(document.querySelector(trick))];
}"""


@pytest.fixture(scope="module")
def page(server: Server) -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        pg = new_page(browser, server.base, width=VIEWPORTS["phone"]["width"], height=VIEWPORTS["phone"]["height"])
        register(pg, "Viewportplayer")
        yield pg
        browser.close()


# What the player reads on the felt: names under the cards on the table (and Up or Down?'s players'
# names) that are cut (clipped or ended with "…", or without the whole name in their title), and
# Up or Down?'s players whose empty columns take more than one line.
READABLE = """() => {
  const cut = [...document.querySelectorAll('.trick .slot-name, .last-trick .slot-name, .player-row .seat-name strong')].filter((el) =>
    el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1 || el.title !== el.textContent)
    .map((el) => el.textContent);
  const tall = [...document.querySelectorAll('.player-row')].filter((row) =>
    new Set([...row.querySelectorAll('.column.empty')].map((el) => Math.round(el.getBoundingClientRect().top))).size > 1)
    .map((row) => row.querySelector('.seat-name').textContent);
  return {cut, tall};
}"""


def inside(box: dict[str, float] | None, size: dict[str, int]) -> bool:
    if not box:
        return False
    return box["x"] >= -1 and box["y"] >= -1 and box["x"] + box["width"] <= size["width"] + 1 \
        and box["y"] + box["height"] <= size["height"] + 1


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_the_trick_and_the_hand_fit_one_screen(server: Server, page: Any, game: str, players: int) -> None:
    made = page.context.request.post(server.base + "/api/tables", data=json.dumps(
        {"game": game, "players": players, "seats": ["me"] + ["bot:greedy"] * (players - 1),
         "options": OPTIONS[game]}),
        headers={"Content-Type": "application/json"})
    assert made.ok, made.text()
    page.set_viewport_size(VIEWPORTS["phone"])
    page.goto(f"/t/{made.json()['id']}")
    trick = TRICK.get(game, ".trick")
    # A card on the table, and the last trick's explanation above it (after the deal's first trick).
    on_table = "" if game == "up-or-down" else f".felt:has(.trick-why) {trick} .card"
    reached = play_until(page, random.Random(players), PLAY_PHASE[game], on_table)
    assert reached, f"{game} with {players}: never the player's turn to play a card"
    problems = []
    for name, size in VIEWPORTS.items():
        page.set_viewport_size(size)
        page.wait_for_function("w => document.documentElement.clientWidth === w", arg=size["width"])
        page.wait_for_function("() => document.getAnimations().length === 0")  # no card on its way
        # Scrolled and measured in one go: a frame drawn in between cannot move things.
        hand, table = page.evaluate(MEASURE, trick)
        where = f"{game} with {players} at {size['width']}x{size['height']}"
        page.screenshot(path=str(SHOTS / f"viewport-{game}-{players}-{name}.png"))
        if not inside(hand, size):
            problems.append(f"{where}: the hand is not in view: {hand}")
        if not inside(table, size):
            problems.append(f"{where}: the cards on the table are not in view with the hand: {table}")
        readable = page.evaluate(READABLE)
        if readable["cut"]:
            problems.append(f"{where}: names cut short under the cards: {readable['cut']}")
        if readable["tall"]:
            problems.append(f"{where}: empty columns on more than one line: {readable['tall']}")
        width, out = sideways(page)
        if width > size["width"] or out:
            problems.append(f"{where}: {width} px wide: {out}")
    assert not problems, "\n".join(problems)
    assert page.errors == [], page.errors
