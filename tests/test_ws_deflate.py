"""The ``ws_deflate`` setting: WebSocket compression (permessage-deflate) is negotiated with a client
that offers it by default, and not at all with the setting off (flag, environment variable or TOML
file), while play goes on either way."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from server_util import Server, User, make_table
from updown.server.settings import Settings


def handshake(server: Server) -> tuple[str | None, list[str], dict[str, Any]]:
    """Connect a seated guest offering permessage-deflate; the server's Sec-WebSocket-Extensions header,
    the extensions the connection uses, and the first message after hello (its snapshot)."""
    user = User(server, guest=True)
    table = make_table(user, "updown", ["me", "bot:random", "bot:random", "bot:random"])
    url = f"ws://127.0.0.1:{server.port}/ws/tables/{table['id']}"
    with connect(url, additional_headers={"Cookie": user.cookie()}, open_timeout=20, ping_interval=None,
                 compression="deflate") as ws:
        assert ws.request is not None and ws.response is not None
        offered = ws.request.headers.get("Sec-WebSocket-Extensions", "")
        assert "permessage-deflate" in offered, offered  # the client did offer it
        answer = ws.response.headers.get("Sec-WebSocket-Extensions")
        used = [str(ext.name) for ext in ws.protocol.extensions]
        hello = json.loads(ws.recv(timeout=20))
        assert hello["type"] == "hello" and hello["seat"] == 0, hello
        while True:
            msg: dict[str, Any] = json.loads(ws.recv(timeout=20))
            if msg["type"] == "snapshot":
                return answer, used, msg


@pytest.mark.parametrize("how", ["default", "flag on"])
def test_a_client_that_offers_deflate_gets_it_by_default(how: str, tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'a.db'}",
                    extra_args=["--ws-deflate"] if how == "flag on" else []).start()
    try:
        answer, used, snapshot = handshake(server)
    finally:
        server.stop()
    assert answer is not None and answer.startswith("permessage-deflate"), answer
    assert used == ["permessage-deflate"]
    assert snapshot["view"]["seat"] == 0


@pytest.mark.parametrize("how", ["flag", "environment", "file"])
def test_with_the_setting_off_no_client_gets_deflate(how: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    args: list[str] = []
    if how == "flag":
        args = ["--no-ws-deflate"]
    elif how == "environment":
        monkeypatch.setenv("UPDOWN_WS_DEFLATE", "false")
    else:
        config = tmp_path / "updown.toml"
        config.write_text("ws_deflate = false\n")
        args = ["--config", str(config)]
    server = Server(f"sqlite:///{tmp_path / 'a.db'}", extra_args=args).start()
    try:
        answer, used, snapshot = handshake(server)
    finally:
        server.stop()
    assert answer is None, answer
    assert used == []
    assert snapshot["view"]["seat"] == 0  # and the table is played all the same


def test_the_setting_reads_like_the_others(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in [k for k in os.environ if k.startswith("UPDOWN_")]:
        monkeypatch.delenv(key)
    assert Settings.load({}).ws_deflate is True
    config = tmp_path / "updown.toml"
    config.write_text("ws_deflate = false\n")
    assert Settings.load({}, config).ws_deflate is False
    monkeypatch.setenv("UPDOWN_WS_DEFLATE", "true")
    assert Settings.load({}, config).ws_deflate is True
    assert Settings.load({"ws_deflate": False}).ws_deflate is False

