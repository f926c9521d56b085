#!/usr/bin/env python3
"""A tiny bot for the updown bot protocol (docs/bot-protocol.md), using only the standard library.

It plays any of the games: for each "act" message it answers one of the legal actions at random.
Try it:

    updown simulate euchre --games 20 --bots "exec:python3 examples/random_bot.py,random,random,random"
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            rng.seed(f"{message['game']} seat {message['seat']}")
        elif kind == "act":
            legal = message["legal"]
            choice = rng.choice(legal)
            # Answer with the id (or the notation: {"action": choice["action"]} works too).
            print(json.dumps({"action": choice["id"]}), flush=True)
        elif kind == "quit":
            break


if __name__ == "__main__":
    main()
