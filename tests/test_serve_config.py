"""What ``updown serve`` hands uvicorn: checked on the configuration it builds, without serving."""

from __future__ import annotations

from pathlib import Path

from updown.cli.cmd_serve import uvicorn_config
from updown.server.app import create_app
from updown.server.protocol import HttpProtocol, WebSocketProtocol
from updown.server.settings import Settings


def test_serve_runs_uvicorn_with_the_http_protocol_that_leaves_no_cycle_behind_a_websocket(tmp_path: Path) -> None:
    settings = Settings.load({"db": f"sqlite:///{tmp_path / 'serve.db'}", "ws_deflate": False}, None)
    config = uvicorn_config(create_app(settings), settings)
    assert config.http is HttpProtocol  # uvicorn's own keeps its parser after an upgrade (test_gc_cycles)
    assert config.ws_per_message_deflate is False and config.server_header is False
    # Ours, not uvicorn's "auto": with ws_deflate on it sends short messages uncompressed (test_ws_plain_below).
    assert config.ws is WebSocketProtocol
    assert config.ws_ping_interval == settings.ws_ping_interval
