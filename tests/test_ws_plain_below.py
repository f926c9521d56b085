"""The server's permessage-deflate (``updown.server.protocol``): a message shorter than ``PLAIN_BELOW``
bytes goes out uncompressed (RSV1 clear), a longer one compressed, the compressor's context kept across
both; checked on the extension itself and through a real ``updown serve`` with a client that offers
compression, and with ``ws_deflate`` off (no compression at all)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode

from server_util import Client, Server, User, check_no_leak, make_table, play_out
from updown.server.protocol import DEFLATE, PLAIN_BELOW, PlainBelowDeflate


def pair(plain_below: int = PLAIN_BELOW) -> tuple[PlainBelowDeflate, PerMessageDeflate]:
    """The server's extension and a client's (websockets' own), as negotiated with 12 bits each way."""
    server = PlainBelowDeflate(False, False, 12, 12, {"memLevel": 5}, plain_below=plain_below)
    client = PerMessageDeflate(False, False, 12, 12, {"memLevel": 5})
    return server, client


def through(server: PlainBelowDeflate, client: PerMessageDeflate, frame: Frame) -> tuple[Frame, Frame]:
    """A frame as the server puts it on the wire, and as the client decodes it."""
    sent = server.encode(frame)
    return sent, client.decode(Frame(sent.opcode, bytes(sent.data), sent.fin, sent.rsv1))


def test_short_messages_go_plain_longer_ones_compressed_and_all_decode_in_order() -> None:
    server, client = pair()
    frame_text = json.dumps({"type": "frame", "legal": [], "events": ["Alice plays the queen of hearts"] * 8})
    assert len(frame_text) >= PLAIN_BELOW
    messages = []
    for i in range(30):
        messages.append(json.dumps({"type": "ack", "id": f"a{i}"}))  # about 25 bytes
        messages.append(frame_text.replace("queen", f"queen {i}"))
    for text in messages:
        data = text.encode()
        sent, got = through(server, client, Frame(Opcode.TEXT, data))
        assert sent.rsv1 is (len(data) >= PLAIN_BELOW), (len(data), sent.rsv1)
        if not sent.rsv1:
            assert bytes(sent.data) == data  # as it is
        else:
            assert len(sent.data) < len(data)
        assert bytes(got.data) == data and not got.rsv1
    # The plain messages left the context alone: the frames still lean on one another, compressing
    # to a fraction of the first's size.
    first = len(PerMessageDeflate(False, False, 12, 12).encode(Frame(Opcode.TEXT, messages[1].encode())).data)
    assert len(server.encode(Frame(Opcode.TEXT, messages[-1].encode())).data) < first / 3


def test_the_bound_is_exclusive_and_binary_messages_follow_it_too() -> None:
    server, client = pair(plain_below=40)
    for opcode in (Opcode.TEXT, Opcode.BINARY):
        for size, compressed in ((39, False), (40, True), (41, True)):
            data = b"x" * size
            sent, got = through(server, client, Frame(opcode, data))
            assert sent.rsv1 is compressed, (opcode, size)
            assert bytes(got.data) == data


def test_a_fragmented_message_is_compressed_whole_even_when_its_frames_are_short() -> None:
    server, client = pair()
    parts = [b'{"type":"chat",', b'"text":"hi"}']  # each under PLAIN_BELOW
    first, got_first = through(server, client, Frame(Opcode.TEXT, parts[0], fin=False))
    last, got_last = through(server, client, Frame(Opcode.CONT, parts[1], fin=True))
    assert first.rsv1 and not last.rsv1  # RSV1 on the first frame only (RFC 7692)
    assert bytes(got_first.data) + bytes(got_last.data) == b"".join(parts)
    # And a short whole message right after goes plain again.
    sent, got = through(server, client, Frame(Opcode.TEXT, b'{"type":"ack","id":"a1"}'))
    assert not sent.rsv1 and bytes(got.data) == b'{"type":"ack","id":"a1"}'


def test_control_frames_are_left_alone() -> None:
    server, _client = pair()
    ping = Frame(Opcode.PING, b"\x01\x02\x03\x04")
    assert server.encode(ping) is ping


def test_the_factory_negotiates_as_uvicorns_and_hands_out_the_plain_below_extension() -> None:
    answer, ext = DEFLATE.process_request_params([("client_max_window_bits", None)], [])
    assert answer == [("server_max_window_bits", "12"), ("client_max_window_bits", "12")]
    assert isinstance(ext, PlainBelowDeflate) and ext.plain_below == PLAIN_BELOW
    assert (ext.local_max_window_bits, ext.remote_max_window_bits) == (12, 12)
    assert ext.compress_settings == {"memLevel": 5}
    # A client that asks for no context takeover gets it, as from uvicorn's factory.
    _answer, fresh = DEFLATE.process_request_params([("server_no_context_takeover", None)], [])
    assert isinstance(fresh, PlainBelowDeflate) and fresh.local_no_context_takeover


def spy(client: Client) -> list[tuple[bool, bytes]]:
    """(RSV1, the decoded payload) of every data frame the client's socket decodes from now on."""
    assert client.ws is not None
    seen: list[tuple[bool, bytes]] = []
    [ext] = client.ws.protocol.extensions
    decode = ext.decode

    def recording(frame: Frame, *, max_size: int | None = None) -> Frame:
        out = decode(frame, max_size=max_size)
        if frame.opcode in (Opcode.TEXT, Opcode.BINARY):
            seen.append((frame.rsv1, bytes(out.data)))
        return out

    ext.decode = recording  # type: ignore[method-assign]
    return seen


@pytest.mark.parametrize("deflate", [True, False])
def test_through_the_server_acks_go_plain_frames_compressed_and_every_message_decodes(
        deflate: bool, tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'a.db'}", extra_args=[] if deflate else ["--no-ws-deflate"]).start()
    try:
        user = User(server, guest=True)
        table = make_table(user, "updown", ["me", "bot:random", "bot:random", "bot:random"])
        client = user.socket(table["id"])  # websockets' client: it offers permessage-deflate
        assert client.ws is not None
        names = [str(ext.name) for ext in client.ws.protocol.extensions]
        if not deflate:
            # Nothing negotiated, so a compressed frame would be a protocol error (RSV1 set without
            # an extension) and end the game below.
            assert names == []
            play_out([client], random.Random(3))
            assert len(client.acks) >= 5 and not client.errors
            return
        assert names == ["permessage-deflate"]
        seen = spy(client)
        play_out([client], random.Random(3))
        record = user.get(f"/api/tables/{table['id']}/record").json()
        client.close()
    finally:
        server.stop()
    assert len(client.acks) >= 5 and not client.errors
    check_no_leak(record, client)  # every frame decoded to a view the seat really had, in order
    kinds: dict[str, list[bool]] = {}
    for rsv1, payload in seen:
        assert rsv1 is (len(payload) >= PLAIN_BELOW), (rsv1, payload[:80])
        kinds.setdefault(json.loads(payload)["type"], []).append(rsv1)
    assert kinds["ack"] and not any(kinds["ack"]), kinds.get("ack")  # about 25 bytes: plain
    assert len(kinds["frame"]) > 10 and all(kinds["frame"]), kinds.get("frame")  # compressed
