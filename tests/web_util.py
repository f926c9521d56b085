"""Helpers for the browser tests: Debian's Chromium driven by Playwright, and a player who plays
only by clicking what the page offers."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from server_util import Server

CHROMIUM = os.environ.get("UPDOWN_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_MISSING = not os.path.isfile(CHROMIUM) or not os.access(CHROMIUM, os.X_OK)
SKIP_REASON = f"no Chromium at {CHROMIUM}: set UPDOWN_TEST_CHROMIUM (eval \"$(.ci/services start)\" installs and sets it)"
"""The reason of every browser test's skip: it names UPDOWN_TEST_CHROMIUM, so CI fails it instead."""
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
SHOTS = Path(__file__).resolve().parent.parent / "test-output" / "screenshots"


# -- the fixtures every browser test module shares: `from web_util import browser, server` ----------
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Server]:
    """A real ``updown serve`` on SQLite for the test module (its folder named after the module:
    ``web``, ``web-table``, ...)."""
    tmp = tmp_path_factory.mktemp(request.module.__name__.removeprefix("test_").replace("_", "-"))
    srv = Server(f"sqlite:///{tmp / 'updown.db'}", log=tmp / "server.log").start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium for the test module."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def no_errors(*pages: Any) -> None:
    """No page had a JavaScript error (new_page collects them)."""
    for page in pages:
        assert page.errors == [], page.errors


ENABLED = "[data-action]:not([disabled]):not([aria-disabled='true'])"
READY = f".table-page[data-busy='0'] {ENABLED}"

# Watches the DOM from the first moment of the page: remembers if a hand card ever appeared.
HAND_WATCH = """
window.__handSeen = 0;
const seen = () => { if (document.querySelector('.hand-card, .hand-wrap, .mini-hand, .card.chosen')) window.__handSeen++; };
new MutationObserver(seen).observe(document, {subtree: true, childList: true});
"""


# What sticks out sideways: the page's width, and every element that reaches past the screen's
# right edge or past the panel, felt, hand or seat it is drawn in (a button sticking out of its
# panel does not always widen the page, but a player sees it).
SIDEWAYS = r"""
() => {
  const W = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('#top *, #app *')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || el.closest('.sr')) continue;
    let box = el.parentElement.closest('.panel, .felt, .hand-wrap, .seat, .player-row, .prompt, .banner');
    while (box && !box.getBoundingClientRect().width) box = box.parentElement.closest('.panel, .felt, .hand-wrap, .seat, .player-row, .prompt, .banner');
    const limit = Math.min(W, box ? box.getBoundingClientRect().right : W);
    if (r.right > limit + 1) {
      out.push(`${el.tagName.toLowerCase()}.${String(el.className).trim().replace(/\s+/g, '.')} ` +
               `"${(el.textContent || '').trim().slice(0, 30)}" ends at ${Math.round(r.right)} (limit ${Math.round(limit)})`);
    }
  }
  return {width: document.documentElement.scrollWidth, out: out.slice(0, 12)};
}
"""


def sideways(page: Page) -> tuple[int, list[str]]:
    """The page's scroll width and what sticks out (see :data:`SIDEWAYS`)."""
    got = page.evaluate(SIDEWAYS)
    return int(got["width"]), list(got["out"])


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def new_page(browser: Browser, base: str, *, width: int = 1100, height: int = 900, lang: str = "en",
             watch_hands: bool = False) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height}, base_url=base, locale="en-GB")
    context.add_init_script(f"localStorage.setItem('updown.lang', '{lang}');")
    if watch_hands:
        context.add_init_script(HAND_WATCH)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def register(page: Page, name: str, password: str = "pass-word-1") -> None:
    page.goto("/signin")
    page.fill("#register-form input[name=name]", name)
    page.fill("#register-form input[name=password]", password)
    page.click("#register-form button[type=submit]")
    page.wait_for_selector("#create-form")


def guest(page: Page, name: str = "Guest") -> None:
    page.goto("/signin")
    page.fill("#guest-form input[name=name]", name)
    page.click("#guest-form button[type=submit]")
    page.wait_for_selector("#create-form")


def create_table(page: Page, game: str, seats: list[str], options: dict[str, Any] | None = None,
                 rated: bool = False) -> str:
    """Fill the lobby's form and create the table; returns its id (from the page's address)."""
    page.select_option("#create-game", game)
    page.select_option("#create-players", str(len(seats)))
    for i, spec in enumerate(seats):
        if i:
            page.select_option(f"select[data-seat='{i}']", spec)
    for key, value in (options or {}).items():
        if isinstance(value, bool):
            page.set_checked(f"#opt-{key}", value)
        elif page.locator(f"select#opt-{key}").count():
            page.select_option(f"#opt-{key}", str(value))
        else:
            page.fill(f"#opt-{key}", str(value))
    if rated:
        page.check("#create-form input[name=rated]")
    page.click("#create-button")
    page.wait_for_url("**/t/*")
    page.wait_for_selector(".table-page")
    return page.url.rsplit("/", 1)[1].split("?")[0]


def frame_no(page: Page) -> str | None:
    return page.get_attribute(".table-page", "data-n")


def finished(page: Page) -> bool:
    return page.locator("[data-results]").count() > 0


def click_one(page: Page, rng: random.Random, prefer: tuple[str, ...] = (), unless: str | None = None) -> str | None:
    """Click one legal action the page offers (a preferred one if offered); None if none is offered,
    or if ``unless`` (a selector) matches in the same look, so a caller waiting for a moment cannot
    have it clicked away between its own look and this one.
    Waits until the page has taken the click (its frame number changed, or an error came)."""
    for _attempt in range(5):
        found = page.evaluate(
            "([ready, unless]) => ({actions: [...document.querySelectorAll(ready)].map(e => e.dataset.action),"
            " stop: !!(unless && document.querySelector(unless))})", [READY, unless])
        actions = found["actions"]
        if not actions or found["stop"]:
            return None
        choice = next((a for p in prefer for a in actions if a == p or a.startswith(p + " ")), None) \
            or rng.choice(sorted(set(actions)))
        n0 = frame_no(page)
        try:
            page.locator(f"{READY}[data-action='{choice}']").first.click(timeout=3000)
        except Exception:
            continue  # the page re-drew meanwhile; look again
        page.wait_for_function(
            "n0 => { const el = document.querySelector('.table-page');"
            " return !el || el.dataset.n !== n0 || document.querySelector('[data-results], .banner.error'); }",
            arg=n0, timeout=15_000)
        return str(choice)
    return None


def play_to_end(pages: list[Page], rng: random.Random, *, timeout: float = 150.0, prefer: tuple[str, ...] = (),
                each: Any = None) -> int:
    """Let each page click legal actions until every page shows the results; returns clicks made."""
    deadline = time.time() + timeout
    clicks = 0
    while time.time() < deadline:
        if all(finished(p) for p in pages):
            return clicks
        acted = False
        for page in pages:
            if finished(page):
                continue
            if click_one(page, rng, prefer):
                clicks += 1
                acted = True
                if each:
                    each(page, clicks)
        if not acted:
            pages[0].wait_for_timeout(40)
    raise TimeoutError(f"the game did not finish in {timeout} s ({clicks} clicks)")


# -- accessibility: axe-core (npm), injected by Playwright ------------------------------------------
AXE_VERSION = "4.14.1"
AXE_DIR = SHOTS.parent / "axe"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


def axe_source() -> str:
    """axe-core's script, installed with npm into test-output/axe/ on first use (the npm registry
    is reachable where the tests run; npm comes with the machine's Node). Under a file lock: tests on
    several workers must not read the script while another is still installing it."""
    import fcntl
    import shutil
    import subprocess

    path = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
    AXE_DIR.mkdir(parents=True, exist_ok=True)
    with open(AXE_DIR / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            npm = shutil.which("npm")
            if npm is None:
                raise RuntimeError("npm is needed to install axe-core for the accessibility checks")
            subprocess.run([npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(AXE_DIR),
                            f"axe-core@{AXE_VERSION}"], check=True, capture_output=True, timeout=300)
        return path.read_text(encoding="utf-8")


def axe_violations(page: Page, source: str) -> list[str]:
    """axe-core's violations on the page as it is now (WCAG 2.1 A and AA, and best practices), one
    line each: the rule, its impact and the first elements it names. The script is evaluated through
    the DevTools protocol, which the page's Content-Security-Policy does not govern."""
    if not page.evaluate("() => !!window.axe"):
        page.evaluate(source + "\n;0")
    found = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})"
                          ".then(r => r.violations.map(v => [v.id, v.impact, v.help, v.nodes.slice(0, 4).map(n => n.target.join(' '))]))",
                          AXE_TAGS)
    return [f"{rule} ({impact}): {help_text}: {', '.join(nodes)}" for rule, impact, help_text, nodes in found]


def play_until(page: Page, rng: random.Random, phase: str, on_table: str = "", *, timeout: float = 60.0,
               tries: int = 8, prefer: tuple[str, ...] = ("play", "done", "pass")) -> bool:
    """Click legal actions until it is the player's turn in ``phase`` (the page's ``data-phase``)
    with something matching ``on_table`` in the page (a card on the table; "" for anything). After
    ``tries`` such turns without it, the turn in ``phase`` alone will do. False if the game ends or
    the time runs out first."""
    deadline = time.time() + timeout
    seen = 0
    while time.time() < deadline and not finished(page):
        state = page.evaluate(
            "([ready, phase, sel]) => { const p = document.querySelector('.table-page');"
            " return {mine: !!document.querySelector(ready), phase: p && p.dataset.phase === phase,"
            " table: !sel || !!document.querySelector(sel)}; }", [READY, phase, on_table])
        if not state["mine"]:
            page.wait_for_timeout(40)
            continue
        if state["phase"]:
            seen += 1
            if state["table"] or seen > tries:
                return True
        click_one(page, rng, prefer)
    return False
