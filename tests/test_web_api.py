"""The browser client's web-only helpers and catalogue, without a browser: pages served by the
package, the gettext catalogue of every string the pages show, the replay helper's refusals."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from server_util import Server, User, play_out
from updown.bots import make_bot
from updown.core.driver import play_game
from updown.core.registry import all_games, get_game
from updown.web.i18n import catalogue
from updown.web.replay import MAX_STEPS, ReplayError, replay_steps

STATIC = Path(__file__).resolve().parent.parent / "updown" / "web" / "static"


def page_msgids() -> set[str]:
    """Every literal the pages pass to t(), and every game option's help text (shown in the lobby)."""
    ids: set[str] = set()
    for path in STATIC.rglob("*.js"):
        for m in re.finditer(r"\bt\(\s*'((?:[^'\\]|\\.)*)'", path.read_text(encoding="utf-8")):
            ids.add(m.group(1).replace("\\'", "'"))
    for game in all_games():
        ids.update(help_text for _n, _t, _d, help_text in game.Options.fields())
    return ids


@pytest.mark.parametrize("lang", ["de", "pt"])
def test_every_string_the_pages_show_is_translated(lang: str) -> None:
    messages = catalogue(lang)
    ids = page_msgids()
    assert len(ids) > 200
    missing = sorted(i for i in ids if i not in messages)
    assert missing == [], f"{lang}: no translation for {missing[:10]}"
    for msgid in ids:  # the placeholders survive translation
        assert set(re.findall(r"\{\w+\}", messages[msgid])) == set(re.findall(r"\{\w+\}", msgid)), msgid
    assert catalogue("en") == {}


def finished_record(game_id: str, seed: int = 1) -> dict[str, object]:
    game = get_game(game_id)
    options = game.Options.from_dict({"deals": 1} if game_id == "euchre" else {})
    bots = [make_bot("random", game, s, random.Random(seed + s)) for s in range(4)]
    _state, record = play_game(game, 4, bots, random.Random(seed), options=options)
    return record.to_dict()


def test_replay_shows_every_hand_only_for_a_finished_record() -> None:
    record = finished_record("euchre")
    out = replay_steps(json.dumps(record).encode())
    assert out["finished"] is True and len(out["steps"]) >= len(record["steps"]) + 1
    hands = [step["seats"][0].get("hand") for step in out["steps"] if "seats" in step]
    assert any(hands), "a finished record shows the hands"
    for step in out["steps"]:
        assert "hand" not in step["view"]  # the view itself is the spectator's

    cut = dict(record, result=None, steps=record["steps"][:10])
    out = replay_steps(json.dumps(cut).encode())
    assert out["finished"] is False
    assert all("seats" not in step for step in out["steps"])
    assert '"hand":' not in json.dumps(out) and '"discard":' not in json.dumps(out)

    # A record that claims a result but stops early does not replay at all.
    with pytest.raises(ReplayError, match="does not replay"):
        replay_steps(json.dumps(dict(record, steps=record["steps"][:10])).encode())


@pytest.mark.parametrize("body,message", [
    (b"{not json", "not JSON"),
    (b"[]", "not a game record"),
    (json.dumps({"format": "updown-spectator-view", "events": []}).encode(), "spectator"),
    (json.dumps({"format": "updown-record", "version": 1, "game": "chess", "players": 2, "options": {},
                 "seats": ["a", "b"], "steps": []}).encode(), "not a game record"),
    (json.dumps({"steps": ["x"] * (MAX_STEPS + 1)}).encode(), "at most"),
    (b"x" * 2_000_001, "at most 2 MB"),
])
def test_replay_refuses_what_it_cannot_open_with_a_clear_message(body: bytes, message: str) -> None:
    with pytest.raises(ReplayError, match=message):
        replay_steps(body)


def test_a_bad_step_is_named() -> None:
    record = finished_record("updown")
    steps = list(record["steps"])
    steps[len(steps) // 2] = "0: ZZ"
    with pytest.raises(ReplayError, match=r"step \d+"):
        replay_steps(json.dumps(dict(record, steps=steps, result=None)).encode())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("webapi")
    srv = Server(f"sqlite:///{tmp / 'updown.db'}", log=tmp / "server.log").start()
    yield srv
    srv.stop()


def test_the_server_serves_the_pages_and_helpers(server: Server) -> None:
    user = User(server, guest=True)
    for path in ("/", "/signin", "/t/anything", "/replay", "/leaderboard/euchre", "/account"):
        r = user.get(path)
        assert r.status_code == 200 and '<script type="module" src="/static/js/app.js">' in r.text, path
    assert user.get("/static/js/app.js").headers["content-type"].startswith("text/javascript")
    assert user.get("/static/app.css").status_code == 200
    assert user.get("/web/i18n/de").json()["messages"]["Your hand"] == "Deine Hand"
    assert user.get("/web/i18n/xx").status_code == 404
    rules = user.get("/api/rules/updown-sueca?lang=pt").json()
    assert rules["lang"] == "pt" and "RISCOS" in rules["markdown"]
    assert user.get("/api/rules/nope").status_code == 404

    table = user.post("/api/tables", {"game": "euchre", "seats": ["me", "bot:random", "bot:random", "bot:random"],
                                      "options": {"deals": 1}}).json()
    running = user.get(f"/api/tables/{table['id']}/record").text
    r = user.http.post("/web/replay", content=running)
    assert r.status_code == 400 and "spectator" in r.json()["detail"]
    client = user.socket(table["id"])
    play_out([client], random.Random(2))
    client.close()
    record = user.get(f"/api/tables/{table['id']}/record").text
    out = user.http.post("/web/replay", content=record).json()
    assert out["finished"] and out["seats"][0] == user.name
    # The lines come in the page's language (the live table's own words), English otherwise.
    german = user.http.post("/web/replay?lang=de", content=record).json()
    english = [line for step in out["steps"] for line in step["lines"]]
    lines = [line for step in german["steps"] for line in step["lines"]]
    assert len(lines) == len(english) and any("Stich" in line for line in lines)
    assert not any("Stich" in line for line in english) and any("Trick" in line for line in english)
    assert german["steps"][-1]["view"] == out["steps"][-1]["view"]
    unknown = user.http.post("/web/replay?lang=xx", content=record).json()
    assert [line for step in unknown["steps"] for line in step["lines"]] == english
    r = user.http.post("/web/replay", content=b"x" * 2_100_000)
    assert r.status_code == 413 and "2 MB" in r.json()["detail"]
