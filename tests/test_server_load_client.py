"""The light load generator of ``benchmarks/server_load.py``: its permessage-deflate against
websockets' own (the server's side), and its seat playing the old client's script message by message."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

pytest.importorskip("picows")
from websockets.extensions.permessage_deflate import PerMessageDeflate  # noqa: E402
from websockets.frames import Frame, Opcode  # noqa: E402

from bench_util import load_benchmark  # noqa: E402

load = load_benchmark("server_load")

ANSWER = "permessage-deflate; server_max_window_bits=12; client_max_window_bits=12"
"""What uvicorn answers the websockets client's offer (seen on the wire)."""

MESSAGES = [json.dumps({"type": "frame", "n": i, "legal": [{"id": i, "notation": "QH"}], "lines": ["♥ " * i]})
            for i in range(12)]


def server_side() -> PerMessageDeflate:
    return PerMessageDeflate(remote_no_context_takeover=False, local_no_context_takeover=False,
                             remote_max_window_bits=12, local_max_window_bits=12)


def test_the_servers_compressed_frames_inflate_in_order_with_the_context_kept() -> None:
    server, client = server_side(), load.Deflate(ANSWER)
    for text in MESSAGES:
        sent = server.encode(Frame(Opcode.TEXT, text.encode()))
        assert sent.rsv1 and len(sent.data) < len(text.encode())
        assert client.inflate(bytes(sent.data)).decode() == text
    # Later messages lean on the earlier ones (context takeover): alone, one no longer inflates.
    assert server.encode(Frame(Opcode.TEXT, MESSAGES[3].encode())).data != \
        server_side().encode(Frame(Opcode.TEXT, MESSAGES[3].encode())).data


def test_the_clients_messages_deflate_as_the_server_inflates_them() -> None:
    server, client = server_side(), load.Deflate(ANSWER)
    for i in range(8):
        text = json.dumps({"type": "act", "id": f"a{i}", "action": i})
        got = server.decode(Frame(Opcode.TEXT, client.deflate(text.encode()), rsv1=True))
        assert got.data.decode() == text


def test_an_answer_that_is_not_permessage_deflate_is_refused_by_name() -> None:
    with pytest.raises(RuntimeError, match="x-webkit-deflate-frame"):
        load.Deflate("x-webkit-deflate-frame")


class Transport:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.closed = False

    def send(self, kind: Any, data: bytes, rsv1: bool = False) -> None:
        self.sent.append(json.loads(data))

    def send_close(self, *args: Any) -> None:
        self.closed = True

    def disconnect(self, *args: Any) -> None:
        self.closed = True


def frame(legal: list[int], view: dict[str, Any] | None = None) -> bytes:
    # the server's encoding (orjson: compact)
    return json.dumps({"type": "frame", "view": view or {}, "legal": [{"id": a} for a in legal]},
                      separators=(",", ":")).encode()


def seat_with(think: float) -> tuple[Any, Transport, Any, Any]:
    clock, tally, shared = load.Clock(1, 10.0), load.Tally(), load.TableState()
    seat = load.LightSeat(shared, random.Random(3), think, clock, tally, None)
    transport = Transport()
    seat.on_ws_connected(transport)
    return seat, transport, clock, tally


def test_a_seat_acts_from_its_legal_actions_and_times_the_ack_and_the_frame_after_it() -> None:
    async def play() -> None:
        seat, transport, clock, tally = seat_with(0.0)
        seat.queue.append(json.dumps({"type": "snapshot", "legal": [{"id": 7}, {"id": 9}]}).encode())
        assert transport.sent == []  # nothing before the run starts
        clock.start()
        assert [(m["type"], m["id"], m["action"] in (7, 9)) for m in transport.sent] == [("act", "a1", True)]
        seat.handle(frame([]))  # another seat's frame before the ack: not this action's frame
        assert tally.frames == [] and tally.acks == []
        seat.handle(json.dumps({"type": "ack", "id": "a1"}).encode())
        seat.handle(frame([], view={"legal": [5]}))  # a nested "legal" key: parsed, not skipped
        assert len(tally.acks) == 1 and len(tally.frames) == 1 and seat.pending is None
        assert len(transport.sent) == 1  # its frame gave it nothing to do
        seat.handle(frame([4], view={"legal": []}))  # its turn again (the nested empty one is not the frame's)
        assert transport.sent[-1]["action"] == 4 and transport.sent[-1]["id"] == "a2"
        assert tally.actions == 2 and tally.frames_received == 3

    asyncio.run(play())


def test_messages_that_come_while_a_seat_thinks_are_handled_after_its_action_as_the_old_client_did() -> None:
    async def play() -> None:
        seat, transport, clock, tally = seat_with(0.02)
        clock.start()
        seat.handle(frame([1, 2]))
        assert transport.sent == [] and seat.held  # thinking
        seat.on_ws_frame(transport, FakeFrame(frame([3])))  # another seat moved meanwhile
        assert list(seat.queue) == [frame([3])] and tally.frames_received == 1
        await asyncio.sleep(0.1)
        # The action came from the legal actions it thought over; the queued frame was handled after it.
        assert transport.sent[0]["action"] in (1, 2) and tally.frames_received == 2
        assert seat.legal == [{"id": 3}] and seat.pending == "a1"
        clock.stopped = True
        seat.handle(json.dumps({"type": "ack", "id": "a1"}).encode())
        assert tally.acks == []  # after the stop nothing is counted

    asyncio.run(play())


class FakeFrame:
    def __init__(self, data: bytes) -> None:
        self.data, self.payload_size, self.fin, self.rsv1 = data, len(data), True, False
        self.msg_type = load.WSMsgType.TEXT

    def get_payload_as_bytes(self) -> bytes:
        return self.data
