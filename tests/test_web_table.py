"""The table people come back to (issue 32), in Debian's Chromium over a real ``updown serve``:
turn alerts in a hidden tab, the rematch, Resume and one click into a game from the lobby, the
front page in three languages, the coach's hint and review, the replay viewer's move list, links
and keys, and the focus after each action. Screenshots go to ``test-output/screenshots/table-*``.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")  # before web_util, which imports it

from server_util import Server, User, make_table, play_out  # noqa: E402
# browser and server are web_util's shared fixtures (module scope: one of each per test module).
from web_util import CHROMIUM_MISSING, READY, SKIP_REASON, browser, click_one, create_table, finished, guest, new_page, \
    no_errors, play_to_end, register, server, shot, sideways  # noqa: E402,F401

pytestmark = pytest.mark.skipif(CHROMIUM_MISSING, reason=SKIP_REASON)

PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}

# A page whose visibility the test sets (document.visibilityState / hidden and the
# visibilitychange event, as a browser does for a background tab), and a Notification that
# records what the page shows and asks permission only when called.
HIDDEN_TAB = """
window.__notes = [];
window.__asked = 0;
class FakeNotification {
  constructor(title, opts) { window.__notes.push({title, body: opts && opts.body, tag: opts && opts.tag}); }
  close() {}
  static requestPermission() { window.__asked++; FakeNotification.permission = 'granted'; return Promise.resolve('granted'); }
}
FakeNotification.permission = 'default';
window.Notification = FakeNotification;
let hidden = false;
Object.defineProperty(Document.prototype, 'visibilityState', {get() { return hidden ? 'hidden' : 'visible'; }, configurable: true});
Object.defineProperty(Document.prototype, 'hidden', {get() { return hidden; }, configurable: true});
window.__hide = (value) => { hidden = value; document.dispatchEvent(new Event('visibilitychange')); };
"""


def fits(page: Any, name: str) -> None:
    """A screenshot, and at a phone's width nothing scrolls or sticks out sideways."""
    shot(page, name)
    if page.viewport_size["width"] <= PHONE["width"]:
        width, out = sideways(page)
        assert width <= PHONE["width"] and not out, (name, width, out)


def can_act(page: Any) -> bool:
    return page.locator(READY).count() > 0


# -- turn alerts -----------------------------------------------------------------------------------
def bob_plays_until(bob: Any, rng: random.Random, done: Callable[[], bool], seconds: float = 120.0) -> None:
    """Bob plays (passing where he may) whenever he can act, until ``done()``; the bots play between."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "the awaited turn never came"
        if click_one(bob, rng, prefer=("pass",)) is None:
            bob.wait_for_timeout(50)


def test_a_hidden_tab_says_your_turn_in_its_title_and_notifies(server: Server, browser: Any) -> None:
    """Alice waits for Bob with her tab hidden: when her turn comes, the title says so, a
    notification comes (she allowed them with a click, the only time the page asked) and, with
    the sound on, the chime plays. Visible, her next turn brings no notification."""
    alice = new_page(browser, server.base)
    alice.context.add_init_script(HIDDEN_TAB)
    bob = new_page(browser, server.base)
    guest(alice, "Alerta")
    guest(bob, "Bobo")
    # To 10 points, so the table still runs when the page is reloaded at the end: a finished
    # table shows no alert buttons, and one deal can end before Alice's second turn.
    table = create_table(alice, "euchre", ["me", "open", "bot:greedy", "bot:greedy"])
    bob.goto(f"/t/{table}")
    bob.click("[data-join='1']")
    alice.wait_for_selector(".hand-card")
    bob.wait_for_selector(".hand-card")
    rng = random.Random(4)
    # Play on until Bob is to act and Alice waits for him.
    for _ in range(40):
        if can_act(bob) and not can_act(alice):
            break
        if can_act(alice):
            click_one(alice, rng, prefer=("pass",))
        else:
            alice.wait_for_timeout(30)  # the bots play; look again
    assert can_act(bob) and not can_act(alice)
    assert alice.title() == "Euchre — updown"
    assert alice.get_attribute("[data-sound]", "aria-pressed") == "false"  # the sound is off until turned on
    assert alice.evaluate("window.__asked") == 0  # no permission asked before a click
    alice.click("[data-notify]")
    alice.wait_for_selector("[data-notify][aria-pressed='true']")
    assert alice.evaluate("window.__asked") == 1
    alice.click("[data-sound]")
    alice.wait_for_selector("[data-sound][aria-pressed='true']")
    assert alice.evaluate("localStorage.getItem('updown.sound')") == "1"
    beeps = alice.evaluate("window.__table.beeps")

    alice.evaluate("window.__hide(true)")
    shot(alice, "table-alert-before")
    # Bob plays, the bots after him, until it is Alice's turn (which may be a deal later: when her
    # partner goes alone she sits the deal out, and Bob plays on).
    bob_plays_until(bob, rng, lambda: alice.title().startswith("●"))
    assert alice.title() == "● Your turn — updown"
    notes = alice.evaluate("window.__notes")
    assert [n["title"] for n in notes] == ["Your turn"] and "Euchre" in notes[0]["body"]
    assert alice.evaluate("window.__table.beeps") == beeps + 1

    # Visible again: her move, then her next turn: the title says it, no notification.
    alice.evaluate("window.__hide(false)")
    turns = alice.evaluate("window.__table.turns")
    click_one(alice, rng, prefer=("pass",))
    bob_plays_until(bob, rng, lambda: alice.evaluate("window.__table.turns") > turns)
    assert not finished(alice)
    alice.wait_for_function("() => document.title.startsWith('●')")
    assert len(alice.evaluate("window.__notes")) == 1
    # The sound choice is remembered.
    alice.reload()
    alice.wait_for_selector("[data-sound][aria-pressed='true']")
    no_errors(alice, bob)


# -- the rematch -------------------------------------------------------------------------------------
def test_rematch_keeps_the_seats_and_invites_the_other_player(server: Server, browser: Any) -> None:
    alice = new_page(browser, server.base, **PHONE)
    bob = new_page(browser, server.base, **DESKTOP)
    guest(alice, "Ana")
    guest(bob, "Beto")
    old = create_table(alice, "euchre", ["me", "open", "bot:greedy", "bot:random"], {"deals": 1})
    bob.goto(f"/t/{old}")
    bob.click("[data-join='1']")
    bob.wait_for_selector(".hand-card")
    alice.wait_for_selector(".hand-card")
    play_to_end([alice, bob], random.Random(8), prefer=("pass",), timeout=150)
    # The end is shown where the player was looking: scrolled into view under the hand.
    alice.wait_for_function("() => { const r = document.querySelector('[data-results]').getBoundingClientRect();"
                            " return r.top >= -1 && r.top < innerHeight; }")
    fits(alice, "table-game-over-360")
    old_seats = alice.evaluate("window.__table.table.seats")

    alice.click("[data-results] [data-key='rematch']")
    alice.wait_for_url(re.compile(r"/t/(?!" + re.escape(old) + r")"))
    new = alice.url.rsplit("/", 1)[1]
    alice.wait_for_selector(".waiting")
    kept = alice.locator(".seat-list li").nth(1).inner_text()
    assert "kept for" in kept and bob.evaluate("window.__table.account.name") in kept
    fits(alice, "table-rematch-waiting-360")

    # Bob, still on the old table's results, sees the invitation and takes his seat.
    bob.wait_for_selector(f"[data-rematch='{new}']")
    assert "want a rematch" in bob.locator(".rematch-note").inner_text()
    shot(bob, "table-rematch-invited-1280")
    bob.click("[data-results] [data-key='rematch']")
    bob.wait_for_url(f"**/t/{new}")
    bob.wait_for_selector(".hand-card")
    alice.wait_for_selector(".hand-card")
    # The seat comes with the socket's snapshot, which may follow the first frame drawn (seen at load 12).
    bob.wait_for_function("() => window.__table && window.__table.seat === 1", timeout=30_000)
    new_seats = alice.evaluate("window.__table.table.seats")
    assert [(s["kind"], s["name"], s["bot"]) for s in new_seats] == [(s["kind"], s["name"], s["bot"]) for s in old_seats]
    assert alice.evaluate("window.__table.seat") == 0 and bob.evaluate("window.__table.seat") == 1
    # Nothing hidden of the old game reaches the new one: a new seed, so a new deal.
    record = json.loads(alice.context.request.get(f"{server.base}/api/tables/{old}/record").text())
    dealt = next(line for line in record["steps"] if isinstance(line, str) and line.startswith("deal 0: "))
    hand = sorted(alice.eval_on_selector_all(".hand-card", "els => els.map(e => e.dataset.card)"))
    assert len(hand) == 5 and hand != sorted(dealt.split(": ", 1)[1].split())
    fits(alice, "table-rematch-playing-360")
    no_errors(alice, bob)


def test_rematch_over_http_is_for_the_players_and_keeps_their_seats(server: Server) -> None:
    ana, bea, cid = User(server, "RmAna"), User(server, "RmBea"), User(server, "RmCid")
    t = make_table(ana, "euchre", ["me", "open", "bot:greedy", "bot:random"])
    assert bea.post(f"/api/tables/{t['id']}/join", {}).status_code == 200
    assert ana.post(f"/api/tables/{t['id']}/rematch").status_code == 409  # not over yet
    play_out([ana.socket(t["id"]), bea.socket(t["id"])], random.Random(2))
    assert cid.post(f"/api/tables/{t['id']}/rematch").status_code == 403  # a spectator asks nothing
    assert ana.get(f"/api/tables/{t['id']}/rematch").json() == {"id": None, "table": None}
    made = ana.post(f"/api/tables/{t['id']}/rematch")
    assert made.status_code == 200, made.text
    new = made.json()["id"]
    assert new != t["id"] and "seed" not in made.text
    seats = made.json()["table"]["seats"]
    assert [s["kind"] for s in seats] == ["person", "open", "bot", "bot"] and seats[1]["name"] == bea.name
    # The kept seat is Bea's: another person cannot take it, by seat or by any seat.
    assert cid.post(f"/api/tables/{new}/join", {"seat": 1}).status_code == 409
    assert cid.post(f"/api/tables/{new}/join", {}).status_code == 409
    assert ana.get(f"/api/tables/{t['id']}/rematch").json()["id"] == new
    again = bea.post(f"/api/tables/{t['id']}/rematch")  # the same table, her seat
    assert again.json()["id"] == new and again.json()["table"]["status"] == "running"
    assert [s["name"] for s in again.json()["table"]["seats"]][:2] == [ana.name, bea.name]
    assert ana.post(f"/api/tables/{t['id']}/rematch").json()["id"] == new  # asking again changes nothing
    # A rematch goes through the same-origin guard like every other POST.
    evil = ana.http.post(f"/api/tables/{t['id']}/rematch", headers={"Origin": "http://evil.example"})
    assert evil.status_code == 403


def test_the_review_is_the_players_own_and_only_after_an_unrated_game(server: Server) -> None:
    ana, cid = User(server, "RvAna"), User(server, "RvCid")
    t = make_table(ana, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:random"])
    assert ana.get(f"/api/tables/{t['id']}/review").status_code == 409  # not over yet
    play_out([ana.socket(t["id"])], random.Random(3))
    assert cid.get(f"/api/tables/{t['id']}/review").status_code == 403
    # The review is work for the bot pool, whose workers run at nice 19: a busy machine slows it.
    got = ana.get(f"/api/tables/{t['id']}/review", timeout=180)
    assert got.status_code == 200, got.text
    review = got.json()
    assert review["seat"] == 0 and review["decisions"]
    assert review["mistakes"] == sum(1 for d in review["decisions"] if d["mistake"])
    for d in review["decisions"]:
        assert len(d["options"]) >= 2 and d["best"] == d["options"][0]["notation"]
        assert d["played"] in [o["notation"] for o in d["options"]]
    rated = make_table(ana, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:random"], rated=True)
    assert ana.get(f"/api/tables/{rated['id']}/review").status_code == 403


# -- the lobby and the front page ----------------------------------------------------------------------
def test_a_newcomer_is_in_a_game_with_bots_in_one_click_and_can_resume_it(server: Server, browser: Any) -> None:
    page = new_page(browser, server.base, **PHONE)
    page.goto("/")
    page.wait_for_selector("[data-play-now]")
    assert page.locator(".game-card").count() == 4
    assert "partnership" in page.locator(".game-card[data-game='euchre']").inner_text()
    fits(page, "table-front-360")
    page.select_option("#lang", "de")
    page.wait_for_selector("text=Vier Kartenspiele, ein Tisch")
    assert "Stich" in page.locator(".game-card[data-game='updown']").inner_text()
    page.select_option("#lang", "pt")
    page.wait_for_selector("text=Quatro jogos de cartas, uma mesa")
    assert "vaza" in page.locator(".game-card[data-game='updown-sueca']").inner_text()
    fits(page, "table-front-pt-360")
    page.select_option("#lang", "en")
    page.wait_for_selector("text=Four card games, one table")
    page.set_viewport_size(DESKTOP)
    shot(page, "table-front-1280")
    page.set_viewport_size(PHONE)

    page.click("[data-play-now='euchre']")
    page.wait_for_url("**/t/*")
    page.wait_for_selector(".hand-card")  # playing at once: no waiting room
    table = page.url.rsplit("/", 1)[1]
    assert page.get_attribute(".table-page", "data-status") == "running"

    page.goto("/")
    page.wait_for_selector(f".your-games [data-resume='{table}']")
    assert page.locator(f".your-games [data-resume='{table}']").inner_text() == "Resume"
    page.wait_for_selector(f"table.tables [data-resume='{table}']")  # and in the list: Resume, not Watch
    # The form's seats default to bots: a table made with it starts at once.
    assert all(v.startswith("bot:") for v in page.eval_on_selector_all("select[data-seat]", "els => els.slice(1).map(e => e.value)"))
    fits(page, "table-lobby-360")
    page.set_viewport_size(DESKTOP)
    shot(page, "table-lobby-1280")
    page.click(f".your-games [data-resume='{table}']")
    page.wait_for_selector(".hand-card")
    assert page.url.endswith(f"/t/{table}")
    no_errors(page)


# -- the coach in the browser -------------------------------------------------------------------------
def test_hint_marks_the_best_action_and_the_review_links_to_the_replay(server: Server, browser: Any) -> None:
    page = new_page(browser, server.base, **PHONE)
    register(page, "Coached")
    rated = page.context.request.post(server.base + "/api/tables", data=json.dumps(
        {"game": "euchre", "rated": True, "seats": ["me", "bot:greedy", "bot:greedy", "bot:greedy"], "options": {"deals": 1}}),
        headers={"Content-Type": "application/json"})
    assert rated.ok
    page.goto(f"/t/{rated.json()['id']}")
    page.wait_for_selector(READY)
    assert page.locator("[data-coach]").count() == 0  # no coach at a rated table
    page.click("[data-leave]")
    page.click(".modal button.danger")

    page.goto("/")
    create_table(page, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"], {"deals": 1})
    rng = random.Random(12)
    hinted = False
    for _ in range(60):
        if finished(page):
            break
        if page.locator("[data-coach] .hint-button").count():
            legal = sorted(set(page.eval_on_selector_all(READY, "els => els.map(e => e.dataset.action)")))
            page.click("[data-coach] .hint-button")
            page.wait_for_selector(".hint-list", timeout=90_000)  # the coach's search, maybe on a loaded machine
            listed = sorted(page.eval_on_selector_all(".hint-list li", "els => els.map(e => e.dataset.hint)"))
            assert listed == legal  # each legal action has its estimate
            best = page.eval_on_selector_all(".hint-list li.best", "els => els.map(e => e.dataset.hint)")
            assert len(best) == 1
            assert page.locator(f".hint-best[data-action='{best[0]}']").count() == 1  # and it is marked on the table
            fits(page, "table-hint-360")
            hinted = True
            break
        if not click_one(page, rng, prefer=("pass",)):
            page.wait_for_timeout(30)
    assert hinted, "no decision with a choice came"
    play_to_end([page], rng, prefer=("pass",), timeout=120)
    # The focus went from the last move to the next thing to do: the rematch.
    page.wait_for_function("() => document.activeElement && document.activeElement.dataset.key === 'rematch'")
    page.click("text=Review my game")
    page.wait_for_selector("[data-review]", timeout=180_000)  # bot pool work, at nice 19
    summary = page.locator("[data-review] > p").first.inner_text()
    total = page.locator(".all-decisions li").count()
    worse = page.locator(".review-list.mistakes li").count()
    assert summary == f"{worse} of {total} decisions clearly worse than the best."
    page.click(".all-decisions summary")
    fits(page, "table-review-360")
    link = page.locator(".all-decisions li a").last
    href = link.get_attribute("href") or ""
    step = int(href.rsplit("#step=", 1)[1])
    link.click()
    page.wait_for_selector(".moves")
    assert page.get_attribute(".replay-bar", "data-record-step") == str(step)
    no_errors(page)


# -- the replay viewer ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def finished_euchre(server: Server) -> str:
    """A finished Euchre deal of Rita and three bots, played over the WebSocket."""
    rita = User(server, "Rita")
    t = make_table(rita, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:random"])
    play_out([rita.socket(t["id"])], random.Random(6))
    return str(t["id"])


def test_replay_lists_moves_by_deal_and_trick_and_jumps_to_a_trick_by_link_and_keys(
        server: Server, browser: Any, finished_euchre: str) -> None:
    page = new_page(browser, server.base, **DESKTOP)
    page.goto(f"/replay?table={finished_euchre}")
    page.wait_for_selector(".moves")
    moves = page.locator(".moves").inner_text()
    deals = page.locator(".moves .deal-group").count()
    assert deals >= 1 and "Deal 1" in moves and all(f"Trick {n}" in moves for n in range(1, 6))
    # One step for each deal, not one per card dealt; players by name, not seat numbers.
    assert page.locator(".moves button.move:has-text('The cards are dealt')").count() == deals
    assert "deal 0" not in moves and "Rita:" in moves and not re.search(r"(^|\n)[0-3]: ", moves)
    assert page.locator(".replay-where").inner_text().startswith(f"Deal {deals} · Trick 5")

    page.locator(".moves button[data-trick='Trick 3']").first.click()
    page.wait_for_selector(".replay-where:has-text('Trick 3')")
    where = page.locator(".replay-where").inner_text()
    assert where.startswith("Deal 1 · Trick 3 · ")
    assert "Trick 3:" in page.locator(".step-lines").inner_text()  # the trick's end: its result
    step = page.get_attribute(".replay-bar", "data-record-step")
    pos = int(page.get_attribute(".replay-bar", "data-step") or 0)
    assert page.evaluate("location.hash") == f"#step={step}"
    shot(page, "table-replay-trick3-1280")

    # Keys: a step back and forth, a trick at a time.
    page.locator(".moves").click(position={"x": 5, "y": 5})
    # A step patches the viewer, it does not build it anew (rebuilding a long match's hundreds of
    # moves and lines made each step slow): the list of moves and the board are the same elements,
    # and exactly one move is marked as the current one.
    page.evaluate("document.querySelector('nav.moves').__kept = 1; document.querySelector('.replay-main .board').__kept = 1")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f".replay-bar[data-step='{pos - 1}']")
    assert page.evaluate("document.querySelector('nav.moves').__kept === 1 && "
                         "document.querySelector('.replay-main .board').__kept === 1")
    assert page.locator(".moves button.move.current").count() == 1
    page.keyboard.press("ArrowDown")
    page.wait_for_selector(f".replay-bar[data-step='{pos}']")
    page.keyboard.press("ArrowDown")
    page.wait_for_selector(".replay-where:has-text('Trick 4')")
    page.keyboard.press("ArrowUp")
    page.wait_for_selector(f".replay-bar[data-step='{pos}']")
    # The slider.
    page.locator("#replay-slider").fill("2")
    page.wait_for_selector(".replay-bar[data-step='2']")

    # The link opens the same position in another page.
    other = new_page(browser, server.base, **PHONE)
    other.goto(f"/replay?table={finished_euchre}#step={step}")
    other.wait_for_selector(".moves")
    assert other.get_attribute(".replay-bar", "data-record-step") == step
    assert other.locator(".replay-where").inner_text() == where
    assert other.locator(".moves button.move.current").count() == 1
    fits(other, "table-replay-trick3-360")
    no_errors(page, other)


# -- focus ---------------------------------------------------------------------------------------------
def test_after_each_action_the_focus_goes_to_the_next_playable_control(server: Server, browser: Any) -> None:
    page = new_page(browser, server.base)
    guest(page, "Keys")
    create_table(page, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"], {"deals": 1})
    page.wait_for_selector(READY)
    page.locator(READY).first.focus()
    checked = 0
    for _ in range(8):
        if finished(page):
            break
        page.wait_for_selector(READY)
        page.wait_for_function(f"() => document.activeElement && document.activeElement.matches(\"{READY.replace(chr(34), chr(92) + chr(34))}\")")
        n0 = page.get_attribute(".table-page", "data-n")
        page.keyboard.press("Enter")  # plays the focused card or button, by keyboard alone
        page.wait_for_function("n0 => document.querySelector('.table-page').dataset.n !== n0 || document.querySelector('[data-results]')", arg=n0)
        # Never the page: the hand (waiting) or the next thing to play.
        page.wait_for_function("() => document.activeElement && document.activeElement !== document.body")
        checked += 1
    assert checked >= 4
    no_errors(page)


# -- motion ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduced", [False, True])
def test_cards_slide_to_the_trick_unless_the_player_asked_for_reduced_motion(server: Server, browser: Any,
                                                                             reduced: bool) -> None:
    page = new_page(browser, server.base)
    if reduced:
        page.emulate_media(reduced_motion="reduce")
    guest(page, "Calm" if reduced else "Lively")
    create_table(page, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"], {"deals": 1})
    page.wait_for_selector(".hand-card")
    rng = random.Random(9)
    # Until four tricks are over: cards went to the table and tricks to their winners. (Frames that
    # arrive together are drawn as one: a trick's last card and the next trick's first can land in
    # one patch, and under a loaded machine the bots' cards of a trick often do, so three tricks once
    # showed only three motions in CI; four leave room.)
    for _ in range(100):
        if "Trick 4:" in page.locator(".lines").inner_text() or finished(page):
            break
        if not click_one(page, rng, prefer=("pass",)):
            page.wait_for_timeout(30)
    assert "Trick 4:" in page.locator(".lines").inner_text()
    motions = page.evaluate("window.__table.motions")
    if reduced:
        assert motions == 0
    else:
        assert motions >= 4  # at least the first trick's cards, each from its player
    no_errors(page)


# -- accessibility ------------------------------------------------------------------------------------
@pytest.mark.parametrize("width", [PHONE["width"], DESKTOP["width"]])  # one test a size: workers share them
def test_axe_core_finds_no_violation_on_any_page_at_either_size(server: Server, browser: Any, width: int) -> None:
    """axe-core (WCAG 2.1 A and AA, and best practices) on the front page, the replay viewer, the
    lobby, a running table of each game with the coach's hint, a waiting room, the end of a game
    with its review, the account, the leaderboard and the sign-in page, at 360 and 1280 px."""
    from web_util import axe_source, axe_violations

    source = axe_source()
    rita = User(server, f"AxeRita{width}")
    done = make_table(rita, "updown", ["me", "bot:greedy", "bot:greedy", "bot:random"])
    play_out([rita.socket(done["id"])], random.Random(6))
    problems: list[str] = []

    def check(page: Any, name: str) -> None:
        problems.extend(f"{name}: {v}" for v in axe_violations(page, source))

    for size in [s for s in (PHONE, DESKTOP) if s["width"] == width]:
        w = size["width"]
        page = new_page(browser, server.base, **size)
        page.goto("/")
        page.wait_for_selector("[data-play-now]")
        check(page, f"{w} front")
        page.goto(f"/replay?table={done['id']}")
        page.wait_for_selector(".moves")
        check(page, f"{w} replay")
        register(page, f"Axe{w}")
        check(page, f"{w} lobby")
        for game in ("updown", "euchre", "up-or-down", "updown-sueca"):
            page.goto("/")
            page.wait_for_selector("#create-form")
            create_table(page, game, ["me", "bot:greedy", "bot:greedy", "bot:greedy"], {"rounds": 1} if game == "updown" else {})
            page.wait_for_selector(READY)
            if page.locator("[data-coach] .hint-button").count():
                page.click("[data-coach] .hint-button")
                # A hint is the coach's search in the bot pool: under a loaded CI it took over 15 s.
                page.wait_for_selector(".hint-list, [data-coach] .form-error", timeout=90_000)
            check(page, f"{w} {game}")
        page.goto("/")
        page.wait_for_selector("#create-form")
        create_table(page, "euchre", ["me", "open", "bot:greedy", "bot:greedy"], {"deals": 1})
        page.wait_for_selector(".waiting")
        check(page, f"{w} waiting room")
        page.goto("/")
        page.wait_for_selector("#create-form")
        create_table(page, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"], {"deals": 1})
        play_to_end([page], random.Random(w), prefer=("pass",))
        page.click("text=Review my game")
        page.wait_for_selector("[data-review]", timeout=180_000)  # bot pool work, at nice 19
        check(page, f"{w} game over")
        for path, ready in (("/account", "[data-balance]"), ("/leaderboard/euchre", ".tabs"), ("/signin", "#guest-form")):
            page.goto(path)
            page.wait_for_selector(ready)
            check(page, f"{w} {path}")
        no_errors(page)
        page.context.close()
    assert not problems, "\n".join(problems)
