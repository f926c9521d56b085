"""Card letters as players of each language read them, in the browser (issue 32), in Debian's
Chromium over a real ``updown serve``: a German page shows the queen of spades as D♠, a Portuguese
page the king as R, an English page Q and K, from the terminal's own table (``RANK_LETTERS``, sent
with the page's strings), while every card keeps its English notation in what the page sends and
in its attributes (``data-card="QS"``). Switching the language draws the cards again in the new
letters. Screenshots ``letters-*.png``.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")  # before web_util, which imports it

from server_util import SHORT, Server  # noqa: E402
from updown.i18n.events import RANK_LETTERS  # noqa: E402
# browser and server are web_util's shared fixtures (module scope: one of each per test module).
from web_util import CHROMIUM_MISSING, SKIP_REASON, browser, click_one, finished, new_page, no_errors, register, \
    server, shot  # noqa: E402,F401

pytestmark = pytest.mark.skipif(CHROMIUM_MISSING, reason=SKIP_REASON)

SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
ENGLISH = {letter: rank for rank, letter in RANK_LETTERS["en"].items()}
# What a player reads, written out once more by hand: the test must not only agree with the table.
READS = {"en": {"J": "J", "Q": "Q", "K": "K"}, "de": {"J": "B", "Q": "D", "K": "K"}, "pt": {"J": "V", "Q": "D", "K": "R"}}

# Every card face in the page (hand, trick, last trick, up-card...): its notation and what it shows;
# and every hand button: its notation, its action and the start of its accessible name.
CARDS = """() => ({
  faces: [...document.querySelectorAll('.card[data-c]')].map((el) => ({c: el.dataset.c,
    rank: el.querySelector('.rank').textContent, label: el.getAttribute('aria-label')})),
  hand: [...document.querySelectorAll('.hand-card')].map((el) => ({card: el.dataset.card, action: el.dataset.action || null,
    label: el.getAttribute('aria-label'), rank: el.querySelector('.rank').textContent})),
  lang: document.documentElement.lang,
})"""


def letter(card: str, lang: str) -> str:
    """The rank of a card in notation as ``lang`` reads it, from the terminal's table."""
    rank = card[:-1]
    return RANK_LETTERS[lang][ENGLISH[rank]] if rank in ENGLISH else rank


def check(page: Any, lang: str) -> list[str]:
    """Every card face and hand card shows ``lang``'s letters and keeps its English notation;
    returns the hand's cards."""
    got = page.evaluate(CARDS)
    assert got["lang"] == lang and got["hand"], got
    for face in got["faces"]:
        assert face["rank"] == letter(face["c"], lang), face
    for card in got["hand"]:
        notation = card["card"]
        assert notation[:-1] in ("10", *"23456789JQKA") and notation[-1] in SYMBOL, card  # English notation
        assert card["action"] in (None, notation, f"discard {notation}"), card
        assert card["rank"] == letter(notation, lang), card
        # The accessible name begins with what the card shows: "D♠ Pik Dame".
        assert card["label"].startswith(f"{letter(notation, lang)}{SYMBOL[notation[-1]]} "), card
        if notation[:-1] in READS[lang]:
            assert card["rank"] == READS[lang][notation[:-1]], card
    return [card["card"] for card in got["hand"]]


def still_shot(page: Any, name: str) -> None:
    """A screenshot once no card is on its way."""
    page.wait_for_function("() => document.getAnimations().length === 0")
    shot(page, name)


def table_with_bots(page: Any, base: str) -> None:
    made = page.context.request.post(base + "/api/tables", data=json.dumps(
        {"game": "updown", "players": 4, "seats": ["me"] + ["bot:greedy"] * 3, "options": SHORT["updown"]}),
        headers={"Content-Type": "application/json"})
    assert made.ok, made.text()
    page.goto(f"/t/{made.json()['id']}")
    page.wait_for_selector(".hand-card")


def with_faces(page: Any, base: str) -> list[str]:
    """A new UP&DOWN table against bots whose hand holds a jack, queen or king (a deal of 11
    cards almost always does; else a new table)."""
    for _attempt in range(4):
        table_with_bots(page, base)
        hand = page.evaluate("() => [...document.querySelectorAll('.hand-card')].map((el) => el.dataset.card)")
        if any(c[:-1] in "JQK" for c in hand):
            return list(hand)
    raise AssertionError("four deals without a jack, queen or king in the hand")


def wait_letters(page: Any, lang: str) -> None:
    """Until the page is drawn again in ``lang`` (the switch reconnects and redraws the table)."""
    page.wait_for_function(
        "([lang, letters]) => document.documentElement.lang === lang && [...document.querySelectorAll('.hand-card')].length"
        " && [...document.querySelectorAll('.hand-card')].every((el) => { const r = el.dataset.card.slice(0, -1);"
        " return el.querySelector('.rank').textContent === (letters[r] || r); })",
        arg=[lang, {letter: RANK_LETTERS[lang][rank] for letter, rank in ENGLISH.items()}])


@pytest.mark.parametrize("lang", ["de", "pt"])
def test_cards_show_the_letters_of_the_page_language_and_keep_their_notation(server: Server, browser: Any, lang: str) -> None:
    page: Any = new_page(browser, server.base, width=360, height=740, lang=lang)
    register(page, f"Letters{lang}")
    hand = with_faces(page, server.base)
    assert check(page, lang) == hand
    still_shot(page, f"letters-{lang}-hand")

    # Played until a trick is over: the trick on the table and the last-trick view show the same letters.
    rng = random.Random(5)
    for _look in range(2000):  # at most 80 s of looks while the bots play
        if page.locator("[data-last-toggle]").count():
            break
        assert not finished(page), "the game ended first"
        if not click_one(page, rng):
            page.wait_for_timeout(40)
    else:
        raise AssertionError("no trick was finished")
    check(page, lang)
    page.click("[data-last-toggle]")
    page.wait_for_selector("[data-last-trick-view]:not([hidden]) .card[data-c]")
    check(page, lang)
    still_shot(page, f"letters-{lang}-trick")

    # English on the same page: the cards are drawn again with Q, K, J; the notation is the same.
    page.select_option("#lang", "en")
    wait_letters(page, "en")
    check(page, "en")
    # And back: the language's letters again.
    page.select_option("#lang", lang)
    wait_letters(page, lang)
    check(page, lang)
    no_errors(page)


def test_the_server_sends_the_terminal_card_letters_with_the_page_strings(server: Server, browser: Any) -> None:
    page: Any = new_page(browser, server.base)
    for lang in ("de", "pt"):
        body = page.context.request.get(server.base + f"/web/i18n/{lang}").json()
        assert body["ranks"] == {RANK_LETTERS["en"][r]: RANK_LETTERS[lang][r] for r in (11, 12, 13, 14)}, body["ranks"]
    assert page.context.request.get(server.base + "/web/i18n/de").json()["ranks"]["Q"] == "D"
