"""The server's words in the player's language (issue 32): every error the server sends carries a
stable code, and the page says each code in German and Portuguese from the web catalogue (the
server's English only for a code it does not know); the bots' names, the leaderboard and the
Up or Down? seats in the page's language; and German and Portuguese pages with no English left,
checked against the catalogue. The first tests need no browser; the rest run Debian's Chromium over
a real ``updown serve`` (screenshots ``test-output/screenshots/language-*.png``)."""

from __future__ import annotations

import ast
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_util import Client, Server, User, http_client, make_table, play_out
from updown.server.errors import PATTERNS, coded
from updown.web.i18n import catalogue

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "updown" / "server"
ERRORS_JS = ROOT / "updown" / "web" / "static" / "js" / "errors.js"


# -- codes, without a browser --------------------------------------------------------------------
def page_codes() -> set[str]:
    """The codes the page's errors.js can say (the keys of its MESSAGES)."""
    text = ERRORS_JS.read_text(encoding="utf-8")
    body = text[text.index("const MESSAGES = {"):text.index("export const CODES")]
    return set(re.findall(r"^\s+'?([a-z][a-z-]*)'?: \(", body, re.M))


def sample(node: ast.expr) -> list[str]:
    """The messages an argument can be, with a sample for each formatted value ('x7' for !r)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return sample(node.body) + sample(node.orelse)
    if isinstance(node, ast.JoinedStr):
        out = ""
        for part in node.values:
            if isinstance(part, ast.Constant):
                out += str(part.value)
            else:
                assert isinstance(part, ast.FormattedValue)
                out += "'x7'" if part.conversion == ord("r") else "7"
        return [out]
    return []  # a message made elsewhere (str(err), a variable): its own literals are found there


def server_calls() -> Iterator[tuple[str, str, ast.Call]]:
    for path in sorted(SERVER.rglob("*.py")):
        if path.name in ("admin.py", "backup.py"):  # ``updown admin`` and backups: the terminal's, in English
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                yield path.name, name, node


def test_every_http_error_of_the_server_has_a_code() -> None:
    """Every literal message a route refuses with (``bad``, ``Refused``, ``Limited``) is one the
    page can say: it has a code, from the route or from errors.py's patterns."""
    seen = 0
    for where, name, call in server_calls():
        if name in ("bad", "Limited") and len(call.args) >= 2 - (name == "Limited"):
            arg = call.args[1] if name == "bad" else call.args[0]
            for message in sample(arg):
                if name == "Limited":
                    message += "; try again in 30 s"
                assert coded(message), f"{where}: no code for {message!r}"
                seen += 1
        elif name == "Refused":
            assert isinstance(call.args[2], ast.Constant), f"{where}: Refused without a literal code"
            seen += 1
    assert seen > 40


def test_every_code_the_server_sends_is_said_by_the_page() -> None:
    """The codes of HTTP errors (errors.py's patterns, the routes' Refused), of the guards, and of
    every socket error (ActionError, conn.error) have a sentence in errors.js."""
    sent: set[str] = {code for code, _pattern in PATTERNS} | {"invalid", "rate-limited"}
    for where, name, call in server_calls():
        if name == "Refused":
            sent.add(call.args[2].value)  # type: ignore[attr-defined]
        elif name == "ActionError" and isinstance(call.args[0], ast.Constant):
            sent.add(call.args[0].value)
        elif name == "ActionError" and isinstance(call.args[0], ast.IfExp):
            sent.update(n.value for n in (call.args[0].body, call.args[0].orelse) if isinstance(n, ast.Constant))
        elif name == "error" and len(call.args) >= 2 and isinstance(call.args[1], ast.Constant):
            sent.add(call.args[1].value)  # conn.error(cid, "code", ...)
    sent |= set(re.findall(r'"code": "([a-z-]+)"', (SERVER / "limits.py").read_text(encoding="utf-8")))
    sent |= set(re.findall(r'"code": "([a-z-]+)"', (SERVER / "guards.py").read_text(encoding="utf-8")))
    missing = sorted(sent - page_codes())
    assert len(sent) > 60 and missing == [], missing


def test_http_errors_carry_their_code_and_params(server: Server) -> None:
    srv = server
    if True:
        ann = User(srv, "ann-l1")
        with http_client(base_url=srv.base) as http:
            wrong = http.post("/api/login", json={"name": "ann-l1", "password": "not it at all"})
            assert wrong.status_code == 401 and wrong.json() == {
                "detail": "wrong name or password", "code": "wrong-credentials", "params": {}}
            short = http.post("/api/register", json={"name": "x", "password": "pass-word-1"}).json()
            assert short["code"] == "name-rule" and "2 to 24" in short["detail"]
            taken = http.post("/api/register", json={"name": "ann-l1", "password": "pass-word-1"}).json()
            assert taken["code"] == "name-taken" and taken["params"] == {"name": "ann-l1"}
            bot = http.post("/api/register", json={"name": "Greedy bot 1", "password": "pass-word-1"})
            assert bot.status_code == 400 and bot.json()["code"] == "name-reserved"
            assert http.get("/api/tables/nope").json() == {"detail": "no such table", "code": "no-table", "params": {}}
            assert http.get("/api/nothing-here").json()["code"] == "not-found"
            invalid = http.post("/api/login", json={"name": 5})
            assert invalid.status_code == 422 and invalid.json()["code"] == "invalid"
            assert invalid.json()["params"]["fields"] == ["name", "password"]
            foreign = http.post("/api/guest", json={}, headers={"Origin": "http://evil.example"})
            assert foreign.status_code == 403 and foreign.json()["code"] == "cross-origin"
        r = ann.post("/api/tables", {"game": "updown", "options": {"rounds": 99}})
        assert r.status_code == 400 and r.json()["code"] == "option-range"
        assert r.json()["params"] == {"option": "rounds", "low": 1, "high": 50, "value": 99}
        r = ann.post("/api/tables", {"game": "euchre", "players": 3})
        assert r.json()["code"] == "players" and r.json()["params"]["players"] == 3
        r = ann.post("/api/tables", {"game": "euchre", "seats": ["me", "bot:nobody", "open", "open"]})
        assert r.json()["code"] == "seat-spec" and r.json()["params"] == {"seat": 1}


# -- in the browser --------------------------------------------------------------------------------
playwright_api = pytest.importorskip("playwright.sync_api")  # before web_util, which imports it

from web_util import CHROMIUM, CHROMIUM_ARGS, CHROMIUM_MISSING, SKIP_REASON, create_table, new_page, register, \
    shot, sideways  # noqa: E402

browser_only = pytest.mark.skipif(CHROMIUM_MISSING, reason=SKIP_REASON)
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
LANGS = ["de", "pt"]

# Every text a person reads in the page: text nodes, and the placeholders, labels and titles.
TEXTS = """
() => {
  const out = [];
  const walk = (n) => {
    for (const c of n.childNodes) {
      if (c.nodeType === 3) { const s = c.textContent.trim(); if (s) out.push(s); }
      else if (c.nodeType === 1 && c.tagName !== 'SCRIPT') walk(c);
    }
  };
  for (const id of ['top', 'app', 'modal-root']) { const el = document.getElementById(id); if (el) walk(el); }
  for (const el of document.querySelectorAll('#top [aria-label], #app [aria-label], #app [placeholder], #app [title]')) {
    for (const a of ['aria-label', 'placeholder', 'title']) { const v = el.getAttribute(a); if (v) out.push(v.trim()); }
  }
  return out;
}
"""


def english_left(page: Any, lang: str) -> list[str]:
    """The page's texts that are an English msgid of the web catalogue with another translation."""
    messages = catalogue(lang)
    english = {msgid for msgid, text in messages.items() if text != msgid}
    return sorted({s for s in page.evaluate(TEXTS) if s in english})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("web-language")
    # Many registrations from one address in this module: more than the default 20 an hour.
    srv = Server(f"sqlite:///{tmp / 'updown.db'}", log=tmp / "server.log",
                 extra_args=["--limit", "accounts_per_address=500/hour"]).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM_MISSING:
        pytest.skip(SKIP_REASON)
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


# Each code with sample params, as the server sends them.
SAMPLES: dict[str, dict[str, Any]] = {
    "name-reserved": {"name": "Greedy bot 1"}, "name-taken": {"name": "Ana"},
    "players": {"game": "Euchre", "range": 4, "players": 3},
    "option-range": {"option": "rounds", "low": 1, "high": 50, "value": 99},
    "option-choice": {"option": "length", "choices": "short or full", "value": "'x'"},
    "option-unknown": {"option": "colour"}, "option-missing": {"option": "target"},
    "option-type": {"option": "deals", "value": "'x'", "kinds": "a whole number"},
    "seat-count": {"players": 4, "seats": 3}, "seat-spec": {"seat": 2},
    "record-steps": {"max": 20000, "steps": 25000}, "invalid": {"fields": ["name", "password"]},
    "chat-too-long": {"max": 200, "length": 250},
}
LIMITS = ["login-address", "login-name", "accounts", "tables", "hints", "hint-budget", "sign-ins-at-once",
          "bot-tables", "chat", "socket", None]


def said_by_page(page: Any) -> dict[str, str]:
    """What the page says for every code it knows (and each limit), from its own modules."""
    cases = [(code, SAMPLES.get(code, {})) for code in sorted(page_codes()) if code != "rate-limited"]
    cases += [(f"rate-limited:{what}", {"what": what, "retry_after": 12.2, "at_once": 2}) for what in LIMITS]
    return dict(page.evaluate("""async (cases) => {
      const {errorText} = await import('/static/js/errors.js');
      return cases.map(([code, p]) => [code, errorText(code.split(':')[0], p, 'ENGLISH FALLBACK')]);
    }""", cases))


@browser_only
@pytest.mark.parametrize("lang", LANGS)
def test_the_page_says_every_server_error_in_its_language(server: Server, browser: Any, lang: str) -> None:
    """Each code in German and Portuguese: the catalogue's sentence (not its English msgid), the
    figures filled in, never the server's English; an unknown code shows the server's English."""
    english, page = new_page(browser, server.base), new_page(browser, server.base, lang=lang)
    for p in (english, page):
        p.goto("/signin")
        p.wait_for_selector("#signin-form")
    en, said = said_by_page(english), said_by_page(page)
    assert set(en) == set(said) and len(said) > 80
    for code, text in said.items():
        assert text != "ENGLISH FALLBACK" and "{" not in text, (code, text)
        assert text != en[code], f"{lang}: {code} is still English: {text!r}"
    assert "99" in said["option-range"] and "50" in said["option-range"]
    assert said["option-range"].startswith(catalogue(lang)["Rounds"])  # the option's name too
    assert "13" in said["rate-limited:login-address"]  # seconds, rounded up
    unknown = page.evaluate("async () => (await import('/static/js/errors.js')).errorText('no-such-code', {}, 'as sent')")
    assert unknown == "as sent"
    assert english.errors == [] and page.errors == []


@browser_only
@pytest.mark.parametrize("lang", LANGS)
def test_server_errors_on_german_and_portuguese_pages_leave_no_english(server: Server, browser: Any,
                                                                        lang: str) -> None:
    """Real refusals shown on the pages: a wrong password, a name against the rule, a taken name,
    a bot's name, an option out of range in the lobby, an illegal move and a free-text chat line
    during a rated game at the table. Each shows the catalogue's sentence, and the server's English
    is nowhere on the page."""
    messages = catalogue(lang)
    page = new_page(browser, server.base, lang=lang, **PHONE)
    User(server, f"taken-{lang}")

    def refused(form: str, name: str, password: str, expected: str, english: str) -> None:
        page.goto("/signin")
        page.fill(f"#{form} input[name=name]", name)
        page.fill(f"#{form} input[name=password]", password)
        page.click(f"#{form} button[type=submit]")
        page.wait_for_function("t => document.querySelector('.form-error').textContent === t", arg=expected)
        assert english not in page.inner_text("body")

    refused("signin-form", f"taken-{lang}", "wrong-password", messages["Wrong name or password."], "wrong name or password")
    refused("register-form", "ab!", "pass-word-1", messages[
        "A name has 2 to 24 letters, digits, spaces, “.”, “_” or “-”, and starts with a letter or digit."], "a name has")
    refused("register-form", f"taken-{lang}", "pass-word-1",
            messages["The name {name} is taken."].replace("{name}", f"taken-{lang}"), "is taken")
    refused("register-form", "Greedy bot 7", "pass-word-1",
            messages["The name {name} is kept for the site."].replace("{name}", "Greedy bot 7"), "kept for the site")
    shot(page, f"language-signin-error-{lang}")
    register(page, f"Lang {lang}")
    page.select_option("#create-game", "updown")
    page.fill("#opt-rounds", "99")
    page.click("#create-button")
    expected = messages["{option}: from {low} to {high}, not {value}."].format(
        option=messages["Rounds"], low=1, high=50, value=99)
    page.wait_for_function("t => document.querySelector('#create-form .form-error').textContent === t", arg=expected)
    assert "must be 1 to 50" not in page.inner_text("body")
    # At a rated table: an illegal move sent by hand, and a free-text chat line.
    table = create_table(page, "euchre", ["me", "bot:greedy", "bot:normal", "bot:hard"], {"deals": 1}, rated=True)
    page.wait_for_selector(".board")
    page.evaluate("window.__table.send({type: 'act', id: 'by-hand', action: 'AS'})")
    page.wait_for_selector(".banner.error")
    banner = page.inner_text(".banner.error")
    assert messages["That move is not allowed now."] in banner or messages["It is not your turn."] in banner, banner
    assert "not legal" not in banner and "not your turn" not in banner
    page.evaluate("window.__table.sendChat({text: 'my hand is good'})")
    page.wait_for_function("t => document.querySelector('.chat-error').textContent === t",
                           arg=messages["During a rated game the chat takes only the phrases."])
    assert "preset phrases" not in page.inner_text("body")
    assert page.is_hidden("input[name=chat]") and page.is_visible("[data-preset='good-game']")
    assert table and page.errors == []


@browser_only
# In three parts (each page at the phone's and the desktop's size, then a finished rated game), so that
# the workers share them.
@pytest.mark.parametrize("part", ["phone", "desktop", "rated"])
@pytest.mark.parametrize("lang", LANGS)
def test_german_and_portuguese_pages_leave_no_english(server: Server, browser: Any, lang: str, part: str) -> None:
    """The sign-in page, the lobby, a waiting room, a running table of each game (bots named in the
    page's language, in the seats and the event lines), its chat, a finished rated game, the
    leaderboard (bots by their translated names, its header) and the account: no text is an
    English msgid of the catalogue. Up or Down?'s seat says whose turn it is once."""
    messages = catalogue(lang)
    for size in {"phone": [PHONE], "desktop": [DESKTOP], "rated": []}[part]:
        page = new_page(browser, server.base, lang=lang, **size)
        tag = f"{lang}-{size['width']}"
        page.goto("/signin")
        page.wait_for_selector("#guest-form")
        assert english_left(page, lang) == []
        register(page, f"Sprache {tag}")
        assert english_left(page, lang) == []
        for game, players, options in (("updown", 4, {"rounds": 1}), ("euchre", 4, {"deals": 1}),
                                       ("updown-sueca", 4, {}), ("up-or-down", 3, {})):
            page.goto("/")
            page.wait_for_selector("#create-form")
            seats = ["me", "bot:greedy", "bot:normal", "bot:pimc"][:players]
            create_table(page, game, seats, options)
            page.wait_for_selector(".board")
            page.wait_for_selector(".lines li")
            if game == "up-or-down":
                # The seat to act says so once ("am Zug", not "am Zug am Zug" in German).
                page.wait_for_selector(".seat .act-now")
                for tags in page.eval_on_selector_all(".seat", "els => els.map(e => [...e.querySelectorAll('.tag')]"
                                                               ".map(x => x.textContent))"):
                    assert sum(1 for x in tags if x in (messages["to play"], messages["turn"])) <= 1, tags
            body = page.inner_text("#app")
            for english in ("Greedy bot", "Normal bot", "Pimc bot", " bot 1", " bot 2"):
                assert english not in body, (game, english)
            assert messages["Greedy bot {n}"].replace("{n}", "1") in body
            page.fill("input[name=chat]", "Hallo")
            page.click("[data-chat-send]")
            page.wait_for_selector(".chat-lines li[data-seq]")
            page.click("[data-preset='thanks']")
            page.wait_for_function("t => document.querySelector('.chat-lines').textContent.includes(t)",
                                   arg=messages["Thanks"])
            assert english_left(page, lang) == [], game
            if size is PHONE:
                width, out = sideways(page)
                assert width <= PHONE["width"] and not out, (game, width, out)
            shot(page, f"language-{game}-{tag}")
        # A waiting room.
        page.goto("/")
        page.wait_for_selector("#create-form")
        create_table(page, "euchre", ["me", "open", "bot:greedy", "bot:easy"])
        page.wait_for_selector(".waiting")
        assert english_left(page, lang) == []
        shot(page, f"language-waiting-{tag}")
        page.context.close()
    if part != "rated":
        return
    # A finished rated game with bots: its results, the leaderboard, the account.
    player = User(server, f"Rated {lang}")
    table = make_table(player, "euchre", ["me", "bot:greedy", "bot:normal", "bot:random"], rated=True)
    client = player.socket(table["id"])
    play_out([client], random.Random(3), timeout=240)
    client.close()
    page = new_page(browser, server.base, lang=lang, **DESKTOP)
    page.context.add_cookies([{"name": k, "value": v, "url": server.base} for k, v in player.http.cookies.items()])
    page.goto(f"/t/{table['id']}")
    page.wait_for_selector("[data-results]")
    assert english_left(page, lang) == []
    assert messages["Normal bot {n}"].replace("{n}", "2") in page.inner_text("[data-results]")
    shot(page, f"language-results-{lang}")
    # The same results on a phone: the longer words of the language ("Wertungsänderung") fit in
    # its width (once they did not, and the page scrolled sideways at a game's end).
    phone = new_page(browser, server.base, lang=lang, **PHONE)
    phone.context.add_cookies([{"name": k, "value": v, "url": server.base} for k, v in player.http.cookies.items()])
    phone.goto(f"/t/{table['id']}")
    phone.wait_for_selector("[data-results]")
    width, out = sideways(phone)
    shot(phone, f"language-results-phone-{lang}")
    assert width <= PHONE["width"] and not out, (width, out)
    phone.context.close()
    page.goto("/leaderboard/euchre")
    page.wait_for_selector("[data-player='bot:greedy']")
    assert page.inner_text("[data-player='bot:greedy']").startswith(messages["Greedy bot"])
    assert "bot:" not in page.inner_text("#app")
    headers = page.eval_on_selector_all("thead th", "els => els.map(e => e.textContent)")
    assert messages["Rating"] in headers and messages["Rating"] != "Rating"
    assert english_left(page, lang) == []
    shot(page, f"language-leaderboard-{lang}")
    page.goto("/account")
    page.wait_for_selector("[data-balance]")
    assert english_left(page, lang) == []
    assert page.errors == []
