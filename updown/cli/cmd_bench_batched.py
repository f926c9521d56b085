"""``updown bench-batched``: the batched engines' speed against the scalar engines and OpenSpiel."""

from __future__ import annotations

from typing import Annotated

import typer

from updown.cli.app import app, console, fail


@app.command("bench-batched")
def bench_batched(
    seconds: Annotated[float, typer.Option(help="seconds per loop per round")] = 0.3,
    rounds: Annotated[int, typer.Option(help="rounds; the loops take turns in each")] = 10,
) -> None:
    """Batched Euchre and UP&DOWN (numpy) against our scalar engines and OpenSpiel, interleaved."""
    if not 0 < seconds <= 60 or not 1 <= rounds <= 20:
        raise fail("seconds must be above 0 and at most 60, rounds 1 to 20")
    try:
        from updown.batched.bench import run  # numpy is an optional extra: import it only here
    except ImportError as err:
        raise fail(f"{err} (pip install 'updown[batched]')") from None
    run(seconds, rounds, print_line=console.print)
