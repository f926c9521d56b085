"""How fast the replay viewer opens a whole game and steps through it, in Chromium.

    python benchmarks/web_replay.py [--games updown-sueca,euchre,updown] [--slow 1,6] [--steps 20] [--seed 7]
                                    [--src NAME=DIR,NAME=DIR] [--rounds N]

Each game is played to its end by four ``greedy`` bots (``--seed``), its record is opened in the
replay viewer of a real ``updown serve`` (SQLite in a temporary folder, 127.0.0.1, a free port) at
360 x 740, then the viewer steps back ``--steps`` times by the ← key. Printed for each game and
each CPU slow-down (``--slow``: Chromium's own throttling, 6 is about a cheap phone): the seconds
from choosing the file to the viewer's bar, the page script's milliseconds for the steps (the
key events dispatched in the page, so the browser's input path is left out) and the seconds for the
same steps pressed through Playwright. ``--src`` serves the page from other copies of the
project in turn (clones of two commits, say), ``--rounds`` times over, so that two versions are
compared interleaved on the same records. Needs the test extra (Playwright) and Debian's Chromium
(``UPDOWN_TEST_CHROMIUM`` or /usr/bin/chromium). Quote the load average beside the figures.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from updown.core.registry import get_game
from updown.simulate import play_seeded

CHROMIUM = os.environ.get("UPDOWN_TEST_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
STEP_IN_PAGE = """(n) => { const t = performance.now();
  for (let i = 0; i < n; i++) document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowLeft', bubbles: true}));
  return performance.now() - t; }"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="updown-sueca,euchre,updown")
    ap.add_argument("--slow", default="1,6", help="Chromium CPU slow-downs, comma-separated")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--src", default="", help="NAME=DIR,...: serve from these copies of the project in turn")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    sources = [tuple(x.split("=", 1)) for x in args.src.split(",")] if args.src else [("this", "")]
    tmp = Path(tempfile.mkdtemp(prefix="web-replay-"))
    files = {}
    for gid in args.games.split(","):
        _, record = play_seeded(get_game(gid), 4, ["greedy"] * 4, args.seed)
        files[gid] = tmp / f"{gid}.json"
        files[gid].write_text(record.to_json(), encoding="utf-8")
        print(f"{gid}: {len(record.steps)} record lines, {files[gid].stat().st_size} bytes", flush=True)
    for _round in range(args.rounds):
        for name, src in sources:
            measure(args, files, tmp, name, src)


def measure(args: argparse.Namespace, files: dict[str, Path], tmp: Path, name: str, src: str) -> None:
    port = free_port()
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = str(Path(src).resolve())
    code = "import sys; from updown.cli.app import main; sys.argv[0] = 'updown'; main()"
    server = subprocess.Popen([sys.executable, "-P", "-c", code, "serve", "--db", f"sqlite:///{tmp / (name + '.sqlite')}",
                               "--port", str(port), "--host", "127.0.0.1"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            deadline = time.time() + 60
            page = browser.new_page()
            while True:
                try:
                    page.goto(base + "/replay")
                    break
                except Exception:
                    if time.time() > deadline:
                        raise
                    time.sleep(0.5)
            page.close()
            print(f"{name}: load average {os.getloadavg()[0]:.1f}", flush=True)
            for slow in (int(x) for x in args.slow.split(",")):
                for gid, path in files.items():
                    page = browser.new_page(viewport={"width": 360, "height": 740})
                    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": slow})
                    page.goto(base + "/replay")
                    page.wait_for_selector("#replay-file")
                    start = time.perf_counter()
                    page.set_input_files("#replay-file", str(path))
                    page.wait_for_selector(".replay-bar", timeout=300_000)
                    opened = time.perf_counter() - start
                    steps = page.locator(".moves button.move").count()
                    script_ms = page.evaluate(STEP_IN_PAGE, args.steps)
                    start = time.perf_counter()
                    for _ in range(args.steps):
                        page.keyboard.press("ArrowRight")
                    page.evaluate("0")  # the last key's handler has run
                    pressed = time.perf_counter() - start
                    print(f"{name} slow x{slow} {gid}: {steps} moves; open {opened:.2f} s; {args.steps} steps: "
                          f"script {script_ms:.0f} ms, pressed {pressed:.2f} s", flush=True)
                    page.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(10)

if __name__ == "__main__":
    main()
