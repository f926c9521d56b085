"""A person at the terminal, as an agent: shown their seat's view, asked for an action in notation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console

from updown.cli.screens import screen_for
from updown.core.errors import UpdownError
from updown.core.protocol import Game, View


class Quit(Exception):
    """The player typed quit, or input ended."""


class HumanAgent:
    def __init__(self, game: Game[Any], seat: int, names: Sequence[str], console: Console):
        self.game = game
        self.seat = seat
        self.names = names
        self.console = console
        self.screen = screen_for(game)

    leave: int | None = None
    """Set by the CLI before each decision: the seat's leave action, if the game has one."""

    def act(self, view: View, legal: Sequence[int]) -> int:
        notations = [self.game.action_to_str(a) for a in sorted(legal)]
        self.console.print(self.screen(view, self.names))
        prompt = "Change the rules" if view.get("phase") == "lead" else "Your move"
        self.console.print(f"[dim]legal: {', '.join(notations)}[/dim]")
        while True:
            try:
                text = self.console.input(f"[bold]{prompt}[/bold] (or help, quit): ").strip()
            except EOFError:
                raise Quit("input ended") from None
            if not text:
                continue
            if text.lower() in ("quit", "exit", "q"):
                raise Quit("you left the game")
            if text.lower() in ("help", "?"):
                self.console.print(f"Type one of: {', '.join(notations)}")
                continue
            try:
                action = self.game.parse_action(text)
            except UpdownError as err:
                self.console.print(f"[red]{err}[/red]")
                continue
            if action in legal or action == self.leave:
                return action
            self.console.print(
                f"[red]{self.game.action_to_str(action)} is not legal now[/red] "
                f"(legal: {', '.join(notations)})"
            )
