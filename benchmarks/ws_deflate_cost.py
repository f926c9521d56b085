"""What permessage-deflate costs the server a message, on the messages of real UP&DOWN games, and what
cheaper ways to compress would cost and send instead (issue 35; docs/server.md, "Compression's cost").

    python benchmarks/ws_deflate_cost.py [--games 4] [--sockets 4,800] [--messages 150] [--rounds 2]

Records whole games through ``Live`` (as ``server_load.py --in-process`` plays them): each seat's
stream of messages in order (its frames, the ``table`` messages, and an ``ack`` before the frames
of each action it makes), and each seat's own ``act`` messages. Then, for each variant of the
server's compression, replays the streams through websockets' ``ServerProtocol`` (the object
uvicorn's WebSocket protocol sends and parses with) on ``--sockets`` connections at once, one
message to each connection in turn: ``send_text`` + ``data_to_send`` for a message sent (framing,
the extension's ``encode``), ``receive_data`` + ``events_received`` for a client's action received
(parsing, unmasking, the extension's ``decode``). With 800 connections each one's zlib state is
cold when its turn comes, as in a server with 800 sockets; with 4 it is always hot (what a
microbenchmark of ``compress`` alone measured). Reports the CPU a message, by kind (frames, small
messages, received actions), a UP&DOWN action's share (messages per action from the streams), the
bytes on the wire a frame (all messages sent over frames sent, as ``server_load.py`` counts them),
and the memory of a connection's compressor and decompressor (tracemalloc sees zlib's allocations).
Times are this thread's CPU time (``time.thread_time_ns``, about half a microsecond a reading, the
same for every variant), so that other work on the machine does not count. Rounds interleave the
variants (A B C, C B A, ...); the figure is the median of the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import sys
import time
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from websockets.extensions.permessage_deflate import PerMessageDeflate  # noqa: E402
from websockets.frames import Frame, Opcode  # noqa: E402
from websockets.protocol import State  # noqa: E402
from websockets.server import ServerProtocol  # noqa: E402


async def _record(games: int, seed: int) -> tuple[list[list[bytes]], list[list[bytes]]]:
    """Each seat's messages received and its ``act`` messages sent, over ``games`` UP&DOWN games."""
    from inprocess_table import seated_table

    from updown.server.live import encode

    received: list[list[bytes]] = [[] for _ in range(4)]
    sent: list[list[bytes]] = [[] for _ in range(4)]

    def heard(seat: int, text: str) -> None:
        received[seat].append(text.encode())

    rng = random.Random(seed)
    n = 0
    for g in range(games):
        live = seated_table("updown", f"t{g}", f"s{seed}-{g}", heard)
        await live.broadcast()
        while not live.state.is_terminal():
            if live.state.is_chance():
                await live.chance_steps()
            else:
                seat = live.state.actors()[0]
                action = rng.choice(live.state.legal_actions(seat))
                n += 1
                cid = f"a{n}"
                sent[seat].append(encode({"type": "act", "id": cid, "action": action}).encode())
                await live.submit(seat, action, cid, "player")
                received[seat].append(encode({"type": "ack", "id": cid}).encode())  # the route acks, then broadcasts
            await live.broadcast()
    return received, sent


class Variant:
    """One way for the server to compress: None (no extension) or websockets' PerMessageDeflate with
    these window bits and zlib settings, optionally sending messages under ``plain_below`` bytes as
    they are (RSV1 clear)."""

    def __init__(self, name: str, *, deflate: bool = True, bits: int = 12, client_bits: int = 12,
                 settings: dict[str, int] | None = None, plain_below: int = 0) -> None:
        self.name, self.deflate, self.bits, self.client_bits = name, deflate, bits, client_bits
        self.settings = {"memLevel": 5} if settings is None else settings
        self.plain_below = plain_below

    def extension(self) -> PerMessageDeflate | None:
        if not self.deflate:
            return None
        if self.plain_below:
            from updown.server.protocol import PlainBelowDeflate
            return PlainBelowDeflate(False, False, self.client_bits, self.bits, dict(self.settings),
                                     plain_below=self.plain_below)
        return PerMessageDeflate(False, False, self.client_bits, self.bits, dict(self.settings))


def _client_frames(acts: list[bytes], variant: Variant) -> list[bytes]:
    """A seat's ``act`` messages as its client puts them on the wire (masked; deflated as websockets'
    client and the light client do, memLevel 5, the default level, the negotiated client window)."""
    ext = [PerMessageDeflate(False, False, variant.bits, variant.client_bits, {"memLevel": 5})] \
        if variant.deflate else []
    return [Frame(Opcode.TEXT, a).serialize(mask=True, extensions=ext) for a in acts]


def _connection(variant: Variant) -> ServerProtocol:
    conn = ServerProtocol(state=State.OPEN, max_size=2 * 1024 * 1024)
    ext = variant.extension()
    conn.extensions = [ext] if ext is not None else []
    return conn


def run(variant: Variant, received: list[list[bytes]], sent: list[list[bytes]], sockets: int, messages: int,
        small: int) -> dict[str, float]:
    """Replay ``messages`` of each seat's stream on ``sockets`` connections (socket k plays seat k % 4's
    stream), one message to each connection in turn; the CPU a message by kind and the bytes sent."""
    conns = [_connection(variant) for _ in range(sockets)]
    if sockets <= 4:  # hot: every message of the games, so that the figure rests on enough of them
        messages = max(map(len, received))
    streams = [s[:messages] for s in received]
    acts = [_client_frames(a, variant) for a in sent]
    # Where each seat's own actions fall in its stream: an act goes in just before its ack.
    ack_marks = [{i: a for a, i in enumerate(i for i, m in enumerate(s) if m.startswith(b'{"type":"ack"'))}
                 for s in streams]
    clock = time.thread_time_ns  # CPU, not wall time: the machine is shared
    t_frames = t_small = t_recv = 0
    n_frames = n_small = n_recv = wire = frames_sent = 0
    gc.disable()
    try:
        for i in range(messages):
            for k, conn in enumerate(conns):
                seat = k % 4
                stream = streams[seat]
                if i >= len(stream):
                    continue
                msg = stream[i]
                if msg.startswith(b'{"type":"ack"'):
                    data = acts[seat][ack_marks[seat][i]]
                    t0 = clock()
                    conn.receive_data(data)
                    events = conn.events_received()
                    t_recv += clock() - t0
                    n_recv += 1
                    assert len(events) == 1 and isinstance(events[0], Frame), events
                t0 = clock()
                conn.send_text(msg)
                out = conn.data_to_send()
                dt = clock() - t0
                size = sum(map(len, out))
                wire += size
                if len(msg) < small:
                    t_small += dt
                    n_small += 1
                else:
                    t_frames += dt
                    n_frames += 1
                if msg.startswith(b'{"type":"frame"'):
                    frames_sent += 1
    finally:
        gc.enable()
    return {"us_frame": t_frames / max(1, n_frames) / 1000, "us_small": t_small / max(1, n_small) / 1000,
            "us_recv": t_recv / max(1, n_recv) / 1000, "n_frames": n_frames, "n_small": n_small, "n_recv": n_recv,
            "bytes_frame": wire / max(1, frames_sent), "frames_sent": frames_sent,
            "us_total": (t_frames + t_small + t_recv) / 1000}


def memory(variant: Variant, received: list[list[bytes]], sent: list[list[bytes]], n: int = 200) -> float:
    """KiB a connection holds for compression after a few messages each way (tracemalloc)."""
    acts = [_client_frames(a[:3], variant) for a in sent]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    conns = [_connection(variant) for _ in range(n)]
    for k, conn in enumerate(conns):
        for m in received[k % 4][:3]:
            conn.send_text(m)
            conn.data_to_send()
        for f in acts[k % 4][:3]:
            conn.receive_data(f)
            conn.events_received()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del conns
    return (after - before) / n / 1024


VARIANTS = {
    "off": Variant("off", deflate=False),
    "uvicorn": Variant("uvicorn (level 6, memLevel 5, 12 bits)"),
    "plain128": Variant("uvicorn's, under 128 bytes plain", plain_below=128),
    "level1": Variant("level 1", settings={"memLevel": 5, "level": 1}),
    "plain128-level1": Variant("level 1, under 128 plain", settings={"memLevel": 5, "level": 1}, plain_below=128),
    "mem1": Variant("memLevel 1", settings={"memLevel": 1}),
    "level3": Variant("level 3", settings={"memLevel": 5, "level": 3}),
    "level4": Variant("level 4", settings={"memLevel": 5, "level": 4}),
    "plain128-level5": Variant("level 5, under 128 plain", settings={"memLevel": 5, "level": 5}, plain_below=128),
    "plain128-level4": Variant("level 4, under 128 plain", settings={"memLevel": 5, "level": 4}, plain_below=128),
    "mem3-level1": Variant("memLevel 3, level 1", settings={"memLevel": 3, "level": 1}),
    "bits10": Variant("10 bits", bits=10),
    "mem9": Variant("memLevel 9 (websockets' default 8 + 1)", settings={"memLevel": 9}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--sockets", default="4,800", help="connections at once, comma-separated (up to 4: "
                        "every message of the games; more: --messages of each seat's stream)")
    parser.add_argument("--messages", type=int, default=150, help="messages of each seat's stream replayed")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--small", type=int, default=128, help="messages under this many bytes count as small")
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"of {', '.join(VARIANTS)}")
    args = parser.parse_args()
    if not 1 <= args.games <= 50 or not 1 <= args.rounds <= 10 or not 1 <= args.messages <= 5000:
        parser.error("--games 1..50, --rounds 1..10, --messages 1..5000")
    names = args.variants.split(",")
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    sockets = [int(s) for s in args.sockets.split(",")]
    if any(not 1 <= s <= 5000 for s in sockets):
        parser.error("--sockets: 1..5000 each")
    import updown.server.protocol as protocol_module
    print(f"updown from {Path(protocol_module.__file__).parent.parent}; zlib {zlib.ZLIB_RUNTIME_VERSION}; "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    received, sent = asyncio.run(_record(args.games, 7))
    sizes = sorted(len(m) for s in received for m in s)
    per_action = sum(map(len, received)) / max(1, sum(map(len, sent)))
    print(f"{sum(map(len, sent))} actions, {len(sizes)} messages received by the seats ({per_action:.2f} an action); "
          f"sizes: median {statistics.median(sizes):.0f} bytes, under {args.small}: "
          f"{sum(1 for s in sizes if s < args.small)} ({sorted(set(s for s in sizes if s < args.small))[:12]}...), "
          f"max {sizes[-1]}", flush=True)
    results: dict[tuple[str, int], list[dict[str, float]]] = {}
    for r in range(args.rounds):
        order = names if r % 2 == 0 else names[::-1]
        for s in sockets:
            for name in order:
                res = run(VARIANTS[name], received, sent, s, args.messages, args.small)
                results.setdefault((name, s), []).append(res)
                print(f"  round {r + 1}, {s} sockets, {name}: {res['us_frame']:.2f} us a frame, "
                      f"{res['us_small']:.2f} a small message, {res['us_recv']:.2f} an action received, "
                      f"{res['bytes_frame']:.0f} bytes a frame (load {os.getloadavg()[0]:.2f})", flush=True)
    mem = {name: memory(VARIANTS[name], received, sent) for name in names}
    # An action: one act received, and per_action messages sent (frames and small ones in the streams' mix).
    print("\n| variant | sockets | us a frame | us a small message | us an act received | us an action "
          "(sent + received) | bytes a frame on the wire | KiB a connection |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for s in sockets:
        for name in names:
            rs = results[(name, s)]
            med = {k: statistics.median(x[k] for x in rs) for k in rs[0]}
            n_sent = med["n_frames"] + med["n_small"]
            action = (med["us_frame"] * med["n_frames"] + med["us_small"] * med["n_small"]) / n_sent * per_action \
                + med["us_recv"]
            print(f"| {VARIANTS[name].name} | {s} | {med['us_frame']:.2f} | {med['us_small']:.2f} | "
                  f"{med['us_recv']:.2f} | {action:.1f} | {med['bytes_frame']:.0f} | {mem[name]:.1f} |")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")
    print(json.dumps({f"{n}@{s}": v for (n, s), v in results.items()}), file=sys.stderr)


if __name__ == "__main__":
    main()
