"""The browser client in Debian's Chromium (Playwright) over a real ``updown serve`` process.

People sign up, create tables, play whole games by clicking, watch, reload, switch language and
play on a 360 px phone. Screenshots of every table go to ``test-output/screenshots/``.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

playwright_api = pytest.importorskip("playwright.sync_api")  # before web_util, which imports it

from server_util import Server, free_port  # noqa: E402
# browser and server are web_util's shared fixtures (module scope: one of each per test module).
from web_util import CHROMIUM_MISSING, ENABLED, READY, SHOTS, SKIP_REASON, browser, click_one, create_table, finished, guest, \
    new_page, no_errors, play_to_end, register, server, shot, sideways  # noqa: E402,F401

# Each test skips without Chromium, with a reason naming UPDOWN_TEST_CHROMIUM: in CI, tests/conftest.py
# makes that skip a failure.
pytestmark = pytest.mark.skipif(CHROMIUM_MISSING, reason=SKIP_REASON)


def test_two_people_and_two_bots_play_updown_to_the_end_while_a_spectator_sees_no_hand(server: Server, browser: object) -> None:
    alice = new_page(browser, server.base, watch_hands=True)
    bob = new_page(browser, server.base)
    watcher = new_page(browser, server.base, watch_hands=True)
    register(alice, "alice")
    register(bob, "bob")
    table = create_table(alice, "updown", ["me", "open", "bot:greedy", "bot:random"], {"rounds": 1}, rated=True)
    assert alice.locator(".waiting").is_visible()
    assert table in alice.locator(".invite input").input_value()
    # Before anyone sits down at a rated table, the page says what leaving or staying away costs.
    assert "counts as a loss" in alice.locator(".rated-note").inner_text()
    shot(alice, "rated-waiting-room")

    # Bob follows the invitation link and takes the open seat; the game starts by itself.
    bob.goto(f"/t/{table}")
    bob.click("[data-join='1']")
    bob.wait_for_selector(".hand-card")
    alice.wait_for_selector(".hand-card")
    watcher.goto(f"/t/{table}?watch=1")
    watcher.wait_for_selector(".board")
    assert watcher.locator("[data-spectator]").is_visible()

    rng = random.Random(7)
    reloaded = {"done": False}

    def each(page: object, clicks: int) -> None:
        # The spectator never holds a hand card, whatever happens at the table.
        assert watcher.locator(".hand-card, .hand-wrap, .mini-hand, .card.chosen").count() == 0
        if clicks == 12:
            shot(alice, "updown-table")
            shot(watcher, "updown-spectator")
        if not reloaded["done"] and page is alice and alice.get_attribute(".table-page", "data-phase") == "choose" \
                and alice.locator(".card.chosen").count() == 1 and bob.locator(f".table-page[data-busy='0'] {ENABLED}").count():
            reload_mid_trick(alice)
            reloaded["done"] = True

    clicks = play_to_end([alice, bob], rng, each=each, timeout=150)
    assert reloaded["done"], "no moment mid-trick came to reload"
    assert clicks > 20
    for page in (alice, bob, watcher):
        page.wait_for_selector("[data-results]")
    shot(alice, "updown-end")
    results = alice.locator("[data-results]")
    assert "alice" in results.inner_text() and "bob" in results.inner_text()
    # Rated: each seat's rating change is shown.
    assert results.locator("tbody tr").count() == 4
    assert "→" in results.inner_text()
    assert alice.locator("[data-results] a[download]").get_attribute("href") == f"/api/tables/{table}/record"
    assert watcher.evaluate("window.__handSeen") == 0
    assert watcher.locator(".hand-card").count() == 0
    assert alice.evaluate("window.__handSeen") > 0  # the watch does see hands where there are some
    no_errors(alice, bob, watcher)

    # The replay viewer: as a spectator no hands; with all hands, every seat's cards.
    alice.click("text=Watch the replay")
    alice.wait_for_selector(".replay-bar")
    alice.select_option("#replay-mode", "spectator")
    alice.click("[aria-label='First step']")
    for _ in range(12):  # a deal is one step: this is the middle of the first tricks
        alice.click("#replay-forward")
    assert alice.locator(".mini-hand").count() == 0
    alice.select_option("#replay-mode", "all")
    assert alice.locator(".mini-hand").count() == 4
    assert alice.locator(".mini-hand .card").count() > 10
    step = alice.get_attribute(".replay-bar", "data-step")
    alice.click("#replay-back")
    assert int(alice.get_attribute(".replay-bar", "data-step") or 0) == int(step or 0) - 1
    shot(alice, "replay")


def reload_mid_trick(page: object) -> None:
    """Alice has chosen her card and Bob has not: reload, and she is back where she was."""
    chosen = page.locator(".card.chosen").get_attribute("title")
    hand = sorted(page.eval_on_selector_all(".hand-card", "els => els.map(e => e.dataset.card)"))
    n = page.get_attribute(".table-page", "data-n")
    page.reload()
    page.wait_for_selector(".card.chosen")
    assert page.locator(".card.chosen").get_attribute("title") == chosen
    assert sorted(page.eval_on_selector_all(".hand-card", "els => els.map(e => e.dataset.card)")) == hand
    assert page.get_attribute(".table-page", "data-n") == n
    assert page.get_attribute(".table-page", "data-phase") == "choose"
    assert page.locator(f".table-page {ENABLED}").count() == 0  # she has chosen: nothing to play


@pytest.mark.parametrize("game,options,prefer", [
    ("euchre", {"deals": 1}, ()),
    ("updown-sueca", {}, ("sit out", "done", "trump")),
    ("up-or-down", {"length": "short"}, ("new",)),
])
def test_a_whole_game_against_bots_by_clicks(server: Server, browser: object, game: str, options: dict[str, object],
                                             prefer: tuple[str, ...]) -> None:
    page = new_page(browser, server.base)
    name = f"solo-{game}"[:24]
    register(page, name)
    table = create_table(page, game, ["me", "bot:greedy", "bot:greedy", "bot:random"], options, rated=True)
    page.wait_for_selector(".board")
    rng = random.Random(game)

    def each(p: object, clicks: int) -> None:
        if clicks == 4:
            shot(p, f"{game}-table")

    play_to_end([page], rng, prefer=prefer, each=each, timeout=170)
    shot(page, f"{game}-end")
    results = page.locator("[data-results]").inner_text()
    assert name in results
    if game == "updown-sueca":  # a rated Sueca match settles RISCOS: the change shows, and the balance
        riscos = httpx.get(f"{server.base}/api/tables/{table}").json()["result"]["server"]["riscos"]
        assert f"{riscos[0]:+d}" if riscos[0] else "0" in results
        page.goto("/account")
        page.wait_for_selector("[data-balance]")
        assert page.locator("[data-balance]").inner_text().startswith(f"{riscos[0]} RISCOS")
    no_errors(page)


def test_language_switch_and_a_trick_on_a_360px_phone(server: Server, browser: object) -> None:
    page = new_page(browser, server.base, width=360, height=760)
    guest(page, "Phone")
    create_table(page, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"], {"deals": 1})
    page.wait_for_selector(".hand-card")
    rng = random.Random(3)
    from web_util import click_one

    # Play until the first trick is over, by taps only.
    for _ in range(30):
        if "Trick 1:" in page.locator(".lines").inner_text():
            break
        click_one(page, rng, prefer=("pass",))
        page.wait_for_timeout(30)
    assert "Trick 1:" in page.locator(".lines").inner_text()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the page is {width} px wide on a 360 px screen"
    shot(page, "euchre-phone-360")

    page.select_option("#lang", "de")
    page.wait_for_selector("text=Deine Hand")
    assert page.locator("text=Regeln").count() >= 1
    shot(page, "euchre-phone-de")
    page.select_option("#lang", "pt")
    page.wait_for_selector("text=A tua mão")
    assert page.locator("button:has-text('Regras')").count() == 1
    shot(page, "euchre-phone-pt")
    page.click("button:has-text('Regras')")
    page.wait_for_selector(".rules .md")
    assert "Euchre" in page.locator(".modal").inner_text()
    page.keyboard.press("Escape")
    page.select_option("#lang", "en")
    page.wait_for_selector("text=Your hand")
    assert not finished(page) or page.locator("[data-results]").count() == 1
    no_errors(page)


PHONE = {"width": 360, "height": 740}
GAMES = ("updown", "euchre", "updown-sueca", "up-or-down")


def fits_the_phone(page: object, name: str, problems: list[str]) -> None:
    """No sideways scrolling at 360 px and nothing sticking out of its panel; a screenshot.
    What is wrong is added to ``problems`` (the test reports every page at once)."""
    page.wait_for_timeout(150)  # type: ignore[attr-defined]  # the last frame drawn
    shot(page, name)
    width, out = sideways(page)
    if width > PHONE["width"]:
        problems.append(f"{name}: the page is {width} px wide on a {PHONE['width']} px screen: {out[:4]}")
    elif out:
        problems.append(f"{name}: sticks out: {out[:4]}")


def test_every_page_and_every_game_fits_a_360px_phone(server: Server, browser: object) -> None:
    """The lobby with tables listed, a running table of each game, the waiting room, the account
    and the end of a rated Sueca game (its RISCOS column) at 360 x 740, and UP&DOWN's trick result
    in view together with the hand after a trick."""
    page = new_page(browser, server.base, width=PHONE["width"], height=PHONE["height"])
    register(page, "MaximilianaPhoneplayer36")  # a long name without a break, as people choose them
    api = page.context.request
    problems: list[str] = []

    def table(game: str, seats: list[str], rated: bool = False, options: dict[str, object] | None = None) -> str:
        made = api.post(server.base + "/api/tables", data=json.dumps(
            {"game": game, "seats": seats, "rated": rated, "options": options or {}}), headers={"Content-Type": "application/json"})
        assert made.ok, made.text()
        return str(made.json()["id"])

    # A rated Sueca game that ends: one move, then leave (100 RISCOS) and the bots play it out.
    ended = table("updown-sueca", ["me", "bot:greedy", "bot:greedy", "bot:greedy"], rated=True)
    page.goto(f"/t/{ended}")
    page.wait_for_selector(READY)
    assert click_one(page, random.Random(1), prefer=("sit out", "done", "turn"))
    page.click("[data-leave]")
    page.click(".modal button.danger")
    page.wait_for_selector(".banner.info")

    running = {game: table(game, ["me", "bot:greedy", "bot:greedy", "bot:greedy"],
                           options={"rounds": 1} if game == "updown" else {}) for game in GAMES}
    waiting = table("euchre", ["me", "open", "bot:greedy", "bot:random"])
    page.goto("/")
    page.wait_for_selector("table.tables tbody tr >> nth=5")
    assert page.locator("table.tables a:has-text('Join')").count() == 1
    fits_the_phone(page, "phone-lobby", problems)

    for game, table_id in running.items():
        page.goto(f"/t/{table_id}")
        page.wait_for_selector(".hand-card")
        fits_the_phone(page, f"phone-{game}", problems)
    page.goto(f"/t/{waiting}")
    page.wait_for_selector(".waiting")
    fits_the_phone(page, "phone-waiting-room", problems)

    # UP&DOWN: after the first trick its result is in view with the hand (the bots choose at once,
    # so the next trick's face-down cards are already on the table).
    page.goto(f"/t/{running['updown']}")
    page.wait_for_selector(".hand-card")
    rng = random.Random(11)
    deadline = time.time() + 30
    while "Trick 1 (" not in page.locator(".lines").inner_text() and time.time() < deadline:
        if not click_one(page, rng):
            page.wait_for_timeout(50)
    assert "Trick 1 (" in page.locator(".lines").inner_text()  # "Trick 1 (UP, trump 4): ..."
    page.wait_for_timeout(150)
    page.eval_on_selector(".hand-wrap", "el => el.scrollIntoView({block: 'end'})")
    page.screenshot(path=str(SHOTS / "phone-updown-trick.png"))  # what the player sees, not the whole page
    # The line under the trick says who won it and why ("Trick 1 (UP, trump 4): … wins with …").
    caption = page.locator(".trick-why")
    said = caption.inner_text() if caption.count() else ""
    box, hand = caption.bounding_box() if caption.count() else None, page.locator(".hand-wrap").bounding_box()
    if not said.startswith("Trick 1 ("):
        problems.append(f"UP&DOWN: the table does not say who won trick 1: {said!r}")
    elif not (box and hand and box["y"] >= 0 and hand["y"] + hand["height"] <= PHONE["height"] + 1):
        problems.append(f"UP&DOWN: trick 1's result is out of view with the hand: {box}, {hand}")
    fits_the_phone(page, "phone-updown-after-a-trick", problems)

    page.goto(f"/t/{ended}")
    page.wait_for_selector("[data-results]", timeout=120_000)
    assert "-100" in page.locator("[data-results]").inner_text()  # the RISCOS change of the one who left
    fits_the_phone(page, "phone-sueca-end", problems)
    for path, ready in (("/account", "[data-balance]"), ("/leaderboard/updown-sueca", ".tabs"),
                        (f"/replay?table={ended}", ".replay-bar"), ("/signin", "#guest-form")):
        page.goto(path)
        page.wait_for_selector(ready, timeout=120_000)  # the replay steps through the whole match first
        fits_the_phone(page, "phone-" + path.strip("/").split("?")[0].replace("/", "-"), problems)
    assert not problems, "\n".join(problems)
    no_errors(page)


def test_a_greyed_card_says_why_on_hover_and_focus_in_the_players_language(server: Server, browser: object) -> None:
    """Euchre against bots until a trick where following suit is forced: each greyed card gives the
    terminal's reason (its title, the hint under the hand on hover and on keyboard focus), a click on
    it sends nothing, and in German the reason is German."""
    page = new_page(browser, server.base)
    guest(page, "Follower")
    rng = random.Random(21)
    forced = False
    # The deal is the server's secret, so no seed can promise such a trick. Played this way, one
    # deal in sixteen has none (400 engine deals, 25 without); twelve deals all without is 1 in 10^14.
    # The look for the moment and the choice of a click are one evaluation in the page: earlier,
    # the turn could arrive between the two, and the forced trick was clicked away unseen.
    forced_turn = ".table-page[data-busy='0'][data-phase='play']:has(.hand-card.legal):has(.hand-card.illegal)"
    for _table in range(12):
        create_table(page, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"], {"deals": 1})
        page.wait_for_selector(".hand-card")
        deadline = time.time() + 60
        while not finished(page) and time.time() < deadline:
            if page.locator(forced_turn).count():
                forced = True
                break
            if not click_one(page, rng, prefer=("pass",), unless=forced_turn):
                page.wait_for_timeout(40)
        if forced:
            break
        page.goto("/")
        page.wait_for_selector("#create-form")
    assert forced, "no trick in twelve deals where following suit was forced"

    greyed = page.locator(".hand-card.illegal")
    first = greyed.first
    why = first.get_attribute("data-why") or ""
    assert why.startswith("you must follow "), why
    label = first.get_attribute("aria-label") or ""
    assert f"cannot be played now: {why}" in label
    hint = page.locator("[data-why-hint]")
    # With the pointer and the focus elsewhere, the hint says what every greyed card shares.
    page.mouse.move(1, 1)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    assert hint.inner_text() == why[:1].upper() + why[1:]
    first.hover()
    assert hint.inner_text() == first.get_attribute("title")
    assert hint.inner_text().endswith(": " + why) and hint.inner_text() != why
    shot(page, "euchre-why-hover")
    page.mouse.move(1, 1)
    assert hint.inner_text() == why[:1].upper() + why[1:]
    # Keyboard: a greyed card takes the focus (it is aria-disabled, not disabled) and says why.
    last = greyed.last
    last.focus()
    assert page.evaluate("document.activeElement.classList.contains('illegal')")
    assert hint.inner_text() == last.get_attribute("title")
    # A click on a greyed card shows its reason and sends nothing.
    n = page.get_attribute(".table-page", "data-n")
    first.click(force=True)  # Playwright waits for an aria-disabled button to be enabled; a player need not
    assert hint.inner_text() == first.get_attribute("title")
    page.wait_for_timeout(200)
    assert page.get_attribute(".table-page", "data-n") == n and page.evaluate("window.__table.pending.size") == 0
    assert page.locator(".banner.error").count() == 0
    shot(page, "euchre-why-focus")

    page.select_option("#lang", "de")
    page.wait_for_selector("text=Deine Hand")
    page.wait_for_selector(".hand-card.illegal")
    german = page.locator(".hand-card.illegal").first.get_attribute("data-why") or ""
    assert german.startswith("du musst ") and german.endswith(")") and "bedienen" in german, german
    # The hint says it too (after the card that had the focus, which keeps it).
    assert page.locator("[data-why-hint]").inner_text().lower().endswith(german.lower())
    shot(page, "euchre-why-de")
    page.select_option("#lang", "en")
    no_errors(page)


def test_an_unacknowledged_action_is_resent_with_its_id_after_a_drop(server: Server, browser: object) -> None:
    """The connection drops after the server stored an action but before the page heard the ack:
    the page reconnects with ?since=N and sends the same id again, which is acknowledged, not replayed."""
    import json
    import re

    page = new_page(browser, server.base)
    sent: list[str] = []
    urls: list[str] = []
    state: dict[str, object] = {}

    def route(ws: object) -> None:
        urls.append(ws.url)
        upstream = ws.connect_to_server()

        def from_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "act":
                sent.append(data["id"])
                state.setdefault("dropped_id", data["id"])
            upstream.send(message)

        def from_server(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "ack" and data.get("id") == state.get("dropped_id") and not state.get("dropped"):
                state["dropped"] = True
                ws.close()  # the ack never reaches the page
                return
            ws.send(message)

        ws.on_message(from_page)
        upstream.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/tables/"), route)
    guest(page, "Resend")
    create_table(page, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"], {"deals": 1})
    page.wait_for_selector(".hand-card")
    rng = random.Random(5)
    from web_util import click_one

    for _ in range(6):
        click_one(page, rng, prefer=("pass",))
        if len(sent) >= 3:
            break
    assert state.get("dropped"), "no action was sent"
    dropped = state["dropped_id"]
    assert sent.count(dropped) == 2, sent  # sent, then resent after the reconnect
    assert any("since=" in url for url in urls[1:]), urls  # the reconnect asked only for what it missed
    assert page.locator(".banner.error").count() == 0  # never applied twice (that would be refused)
    # Every action the page sent, the resent one too, is acknowledged in the end (the last click's may
    # still be on its way at this moment: waited for, not read once).
    # (Polled from here: wait_for_function evaluates its text in the page, which the page's
    # script-src 'self' forbids once it has to poll.)
    deadline = time.time() + 30
    while page.evaluate("() => window.__table.pending.size") != 0:
        assert time.time() < deadline, "an action the page sent was never acknowledged"
        page.wait_for_timeout(50)
    no_errors(page)


# -- a page of another origin ----------------------------------------------------------------------
# It tries to use a signed-in player's session: to read their hand over the table's WebSocket and to
# make them leave a rated Sueca match (100 RISCOS). The other origin is another port of the same
# host, which SameSite cookies do not tell apart, so only the server's Origin check stands in the
# way. The same script from the server's own page works, so the test would see an attack that got
# through.
ATTACK = """
async ([base, table]) => {
  const out = {messages: [], opened: false, closed: null, leave: null};
  await new Promise((done) => {
    const ws = new WebSocket(base.replace('http', 'ws') + '/ws/tables/' + table);
    ws.onopen = () => { out.opened = true; };
    ws.onmessage = (ev) => { out.messages.push(JSON.parse(ev.data).type); if (out.messages.length >= 2) ws.close(); };
    ws.onclose = (ev) => { out.closed = ev.code; done(); };
    setTimeout(() => { try { ws.close(); } catch (e) {} done(); }, 5000);
  });
  try {
    const r = await fetch(base + '/api/tables/' + table + '/leave', {method: 'POST', credentials: 'include', mode: 'no-cors'});
    out.leave = r.type;
  } catch (e) { out.leave = 'error: ' + e; }
  return out;
}
"""


@pytest.fixture(scope="module")
def evil() -> Iterator[str]:
    """Another origin on the same host: it serves one empty page."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = b"<!doctype html><title>another site</title><p>nothing to see"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    port = free_port()
    httpd = ThreadingHTTPServer(("127.0.0.1", port), Page)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    httpd.shutdown()


def test_a_page_of_another_origin_neither_reads_a_hand_nor_makes_the_player_leave(
        server: Server, evil: str, browser: object, tmp_path: Path) -> None:
    victim = new_page(browser, server.base)
    register(victim, "victim")
    api = victim.context.request  # the victim's cookies, no Origin (as a script of the site's own would)
    made = api.post(server.base + "/api/tables", data=json.dumps(
        {"game": "updown-sueca", "rated": True, "seats": ["me", "bot:greedy", "bot:greedy", "bot:greedy"]}),
        headers={"Content-Type": "application/json"})
    assert made.ok, made.text()
    table = made.json()["id"]
    # The victim, signed in, visits the other site.
    victim.goto(evil + "/")
    got = victim.evaluate(ATTACK, [server.base, table])
    assert got["messages"] == [] and not got["opened"], got  # no hello, no snapshot: refused at the handshake
    state = api.get(server.base + f"/api/tables/{table}").json()
    assert not state["seats"][0]["left"]
    assert api.get(server.base + "/api/me").json()["balance"] == 0
    # From the site's own page the same script is let through: the check above can fail.
    victim.goto(server.base + "/")
    own = victim.evaluate(ATTACK, [server.base, table])
    assert own["opened"] and own["messages"][:1] == ["hello"], own
    assert api.get(server.base + f"/api/tables/{table}").json()["seats"][0]["left"]
    assert api.get(server.base + "/api/me").json()["balance"] == -100
