"""updown: the Up & Down family of card games.

The rules live in :mod:`updown.games` (pure, no I/O), built on the shared protocol in
:mod:`updown.core`. Bots, records, the CLI and benchmarks talk to games only through that protocol.
"""

__version__ = "0.1.0"
