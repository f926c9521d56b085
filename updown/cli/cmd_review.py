"""``updown review RECORD --seat K``: the coach goes through one seat's decisions in a record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from updown.bots.coach import THRESHOLD, analyse, is_mistake
from updown.cli.app import app, console, fail
from updown.core.errors import UpdownError
from updown.core.protocol import State
from updown.core.records import Record, replay as replay_record


def _decisions(rec: Record, seat: int) -> list[tuple[dict[str, Any], list[int], int]]:
    """(view, legal, action) at each of ``seat``'s decisions, the view as it was before acting."""
    pending: list[Any] = [None]
    found: list[tuple[dict[str, Any], list[int], int]] = []

    def on_step(state: State, who: int | None, action: int) -> None:
        if who == seat and pending[0] is not None:
            view, legal = pending[0]
            found.append((view, legal, action))
        if not state.is_terminal() and seat in state.actors():
            pending[0] = (state.view(seat), state.legal_actions(seat))
        else:
            pending[0] = None

    replay_record(rec, on_step)
    return found


@app.command()
def review(
    path: Annotated[Path, typer.Argument(metavar="RECORD", help="a game record (JSON)")],
    seat: Annotated[int, typer.Option("--seat", help="the seat whose decisions to review")],
    budget: Annotated[int, typer.Option(help="playouts per decision, spread over its legal actions")] = 300,
    seed: Annotated[int, typer.Option(help="seed of the analysis")] = 0,
    all_steps: Annotated[bool, typer.Option("--all", help="also list forced moves")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Mark each decision of a seat whose estimate was clearly worse than the best action's."""
    if budget < 1:
        raise fail("--budget must be at least 1")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise fail(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise fail(f"{path} is not UTF-8 text (byte {err.start})") from None
    try:
        rec = Record.from_json(text)
        if not 0 <= seat < rec.players:
            raise fail(f"there is no seat {seat} (seats are 0 to {rec.players - 1})")
        decisions = _decisions(rec, seat)
    except UpdownError as err:
        raise fail(f"{path}: {err}") from None
    from updown.core.registry import get_game

    game = get_game(rec.game)
    rows = []
    for number, (view, legal, action) in enumerate(decisions, start=1):
        if len(legal) < 2:
            if all_steps:
                rows.append({"decision": number, "played": game.action_to_str(action), "forced": True,
                             "best": game.action_to_str(action), "played_estimate": None,
                             "best_estimate": None, "mistake": False, "options": []})
            continue
        hints = analyse(game, view, legal, budget=budget, seed=seed + number)
        mine = next(h for h in hints if h.action == action)
        rows.append({
            "decision": number, "played": game.action_to_str(action), "forced": False,
            "best": game.action_to_str(hints[0].action),
            "played_estimate": round(mine.estimate, 4), "best_estimate": round(hints[0].estimate, 4),
            "mistake": is_mistake(hints, action),
            "options": [{"action": game.action_to_str(h.action), "estimate": round(h.estimate, 4),
                         "stderr": round(h.stderr, 4), "simulations": h.simulations} for h in hints],
        })
    mistakes = sum(1 for r in rows if r["mistake"])
    if as_json:
        print(json.dumps({"game": game.id, "seat": seat, "player": rec.seats[seat], "budget": budget,
                          "threshold": THRESHOLD, "decisions": rows, "mistakes": mistakes}, indent=1))
        return
    table = Table(title=f"{game.name}: {rec.seats[seat]} (seat {seat}), {budget} playouts per decision")
    table.add_column("#", justify="right")
    table.add_column("played")
    table.add_column("estimate", justify="right")
    table.add_column("best")
    table.add_column("best est.", justify="right")
    table.add_column("")
    for r in rows:
        if r["forced"]:
            table.add_row(str(r["decision"]), r["played"], "", "", "", "forced")
            continue
        mark = "[red]?? clearly worse[/red]" if r["mistake"] else ("best" if r["played"] == r["best"] else "")
        table.add_row(str(r["decision"]), r["played"], f"{r['played_estimate']:+.2f}", r["best"],
                      f"{r['best_estimate']:+.2f}", mark)
    console.print(table)
    console.print(f"{mistakes} of {sum(1 for r in rows if not r['forced'])} decisions clearly worse than the best "
                  f"(estimates: points gained on the others by the end of the deal; marked when {THRESHOLD:g} "
                  "or more below the best and beyond two standard errors)")
