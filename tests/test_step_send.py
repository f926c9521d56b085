"""The step path's sending side (issue 35) changes nothing a client receives.

Every message is encoded by ``live.encode`` (orjson: compact, non-ASCII as UTF-8): through whole
games of all four games, each frame, snapshot and ``table`` message a broadcast sends is one line of
valid JSON whose value is the value of ``json.dumps``'s text for the same message. And the driving loop is started after a step only when it
has something to do (chance or a bot next): a person's turn starts no task, a bot's or chance's does,
and the loop then plays on to the next person as before.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import pytest

from updown.core.frozen import freeze
from updown.server import live as live_module
from updown.server.live import SPECTATOR, Live, encode
from updown.server.models import Seat, Table

from test_idle_broadcast import _play

GAMES = ["updown", "updown-sueca", "up-or-down", "euchre"]


async def _notify(_live: Live) -> None:
    return None


class _Store:
    async def commit_async(self, table_id: str, rows: Any, finish: Any, actor: Any = None) -> None:
        return None


class _Sock:
    def __init__(self, sent: list[str]) -> None:
        self.sent = sent

    async def send_text(self, text: str) -> None:
        self.sent.append(text)


class _Conn:
    def __init__(self, key: int, sent: list[str], lang: str = "en") -> None:
        self.key, self.account_id, self.websocket = key, (key + 1 if key != SPECTATOR else None), _Sock(sent)
        self.send_lock = asyncio.Lock()
        self.last_n: int | None = None
        self.last_table: str | None = None
        self.lang = lang


def _live(game_id: str, kinds: list[str] | None = None) -> Live:
    kinds = kinds or ["person"] * 4
    row = Table(id="t", game=game_id, players=len(kinds), options="{}", seed="seed", timer=30.0, grace=60.0,
                rated=False, private=False, status="running", created_at=time.time())
    seats = [Seat(table_id="t", seat=i, kind=k, account_id=i + 1 if k == "person" else None,
                  bot="random" if k == "bot" else None, name=f"p{i}", left=False, away=False)
             for i, k in enumerate(kinds)]
    live = Live(row, seats, _Store(), bot_delay=0.0, notify=_notify)  # type: ignore[arg-type]
    for info in live.seats:
        info.connections = 1
    return live


def _same_value(text: str, message: Any) -> None:
    """``text`` is one line of valid JSON, UTF-8 throughout, and decodes to the value the former
    encoding (``json.dumps``) of ``message`` decodes to."""
    assert "\n" not in text and "\r" not in text
    text.encode("utf-8")  # no lone surrogates
    assert json.loads(text) == json.loads(json.dumps(message))


@pytest.mark.parametrize("game_id", GAMES)
def test_every_message_of_a_broadcast_is_valid_json_of_the_value_json_dumps_gives(
        game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[str] = []
    encoded: dict[str, Any] = {}

    def recording(message: Any) -> str:
        text = encode(message)
        encoded[text] = json.loads(json.dumps(message))  # the message's value, as the former encoding gave it
        return text

    monkeypatch.setattr(live_module, "encode", recording)
    live = _live(game_id)
    live.conns.update([*(_Conn(i, sent) for i in range(4)), _Conn(SPECTATOR, sent, "de")])
    async def play() -> int:
        await live.broadcast()
        return await _play(live, 400)

    actions = asyncio.run(play())
    assert actions > 20
    kinds = set()
    for text in sent:
        message = json.loads(text)
        kinds.add(message["type"])
        assert text in encoded, message["type"]  # every message sent went through live.encode
        _same_value(text, encoded[text])
    assert kinds == {"snapshot", "frame", "table"}
    assert len(sent) > 5 * actions // 2
    # German event lines have non-ASCII text, sent as UTF-8, not as \u escapes.
    assert any("ü" in text or "ä" in text or "ö" in text or "♥" in text for text in sent)


def test_encode_is_compact_utf8_json_of_the_same_values() -> None:
    message = {"type": "frame", "x": "♥ Zé", "n": [1.5, None, True, -3, 10**15], "nested": {"a": []},
               "frozen": freeze({"hand": [1, 2], "log": [{"e": "play"}]}), "t": (1, 2)}
    text = encode(message)
    assert text == '{"type":"frame","x":"♥ Zé","n":[1.5,null,true,-3,1000000000000000],"nested":{"a":[]},' \
                   '"frozen":{"hand":[1,2],"log":[{"e":"play"}]},"t":[1,2]}'
    _same_value(text, message)
    # Integer keys become string keys, as json.dumps makes them.
    assert json.loads(encode({1: "a", 2: {3: None}})) == json.loads(json.dumps({1: "a", 2: {3: None}}))
    # A value JSON has no form for is refused, naming its type (never sent as something else).
    with pytest.raises(TypeError, match="set"):
        encode({"type": "frame", "legal": {1, 2}})


def test_a_step_starts_the_driving_loop_only_when_chance_or_a_bot_is_next() -> None:
    async def run() -> None:
        people = _live("updown")
        people.owned = True
        rng = random.Random(1)
        # A person's turn next: the loop is not started (it would find nothing to do).
        while people.state.is_chance():
            await people.chance_steps()
        assert not people.due()
        people.kick(read_first=False)
        assert people.driver is None
        # Chance next (a deal after the last card of a round): the loop is started and draws it.
        started = 0
        for n in range(300):
            if people.state.is_terminal():
                break
            seat = people.state.actors()[0]
            await people.submit(seat, rng.choice(people.state.legal_actions(seat)), f"c{n}", "player")
            people.kick(read_first=False)
            if people.due():
                assert people.driver is not None and not people.driver.done()
                started += 1
                await people.driver
                assert not people.state.is_chance()  # it drew every chance step due
            else:
                assert people.driver is None or people.driver.done()
        assert started > 0

        # A bot's turn next: the loop is started and the bot plays until a person must act.
        mixed = _live("updown", ["person", "bot", "bot", "bot"])
        mixed.owned = True
        mixed.kick(read_first=False)
        assert mixed.driver is not None
        await mixed.driver
        assert list(mixed.state.actors()) == [0] and not mixed.due()
        before = len(mixed.steps)
        await mixed.submit(0, rng.choice(mixed.state.legal_actions(0)), "a", "player")
        mixed.kick(read_first=False)
        assert mixed.driver is not None and not mixed.driver.done()
        await mixed.driver
        assert len(mixed.steps) > before + 1  # the bots played after the person

    asyncio.run(run())
