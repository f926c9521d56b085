"""A person at the terminal, as an agent: shown their seat's view, asked for an action.

Everything shown and every "why" comes from the seat's view (``updown.cli.screens``); the input
line is read by :mod:`updown.cli.inputs`. Besides moves the player may type ``help``, ``rules``,
``hint``, ``undo`` (when the session allows it), ``quit``, and ``leave`` where the game has a paid
leave (asked to confirm); each also in German and Portuguese (:data:`updown.cli.moves.COMMANDS`),
and moves and cards are shown in the player's language (:mod:`updown.cli.moves`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from updown.cli.inputs import InputProblem, NotNow, resolve
from updown.cli.moves import fold, words_for
from updown.cli.screens import ScreenHooks, hooks_for, safe_name
from updown.core.errors import NotationError
from updown.core.protocol import Game, View
from updown.i18n import Translator


class Quit(Exception):
    """The player typed quit, or input ended (``at_prompt``: the cursor is still on the prompt's line)."""

    def __init__(self, reason: str, *, at_prompt: bool = False):
        super().__init__(reason)
        self.at_prompt = at_prompt


class Undo(Exception):
    """The player asked to take back their last decision."""



def hint_lines(game: Game[Any], view: View, legal: Sequence[int], _: Translator, budget: int = 300) -> list[str]:
    """The coach's estimate of each legal action, best first, from this seat's view alone."""
    from updown.bots.coach import analyse, is_mistake

    hints = analyse(game, view, legal, budget=budget, seed=len(view.get("log", ())))
    words = words_for(_)
    moves = {h.action: words.show(game.action_name(h.action)) for h in hints}
    width = max([14, *(len(m) for m in moves.values())])
    lines = [_("The coach's estimates (points you gain on the others by the end of the deal), best first:")]
    for i, h in enumerate(hints):
        mark = _("best") if i == 0 else (_("clearly worse") if is_mistake(hints, h.action) else "")
        lines.append(f"  {moves[h.action]:<{width}} {h.estimate:+6.2f}  {mark}".rstrip())
    return lines


class HumanAgent:
    def __init__(self, game: Game[Any], seat: int, names: Sequence[str], console: Console, _: Translator,
                 *, show_rules: Callable[[], None] | None = None):
        self.game = game
        self.seat = seat
        self.names = [safe_name(n) for n in names]
        self.console = console
        self._ = _
        self.words = words_for(_)
        self.hooks: ScreenHooks = hooks_for(game)
        self.show_rules = show_rules
        self.queue: list[int] = []
        self.can_undo = False
        """Set by the session before each decision: whether there is a decision to take back."""
        self.leave: int | None = None
        """Set by the session before each decision: the seat's leave action, if the game has one."""
        self.auto = True
        """Play a decision with one legal choice without asking."""

    def say(self, text: str, style: str = "") -> None:
        self.console.print(Text(text, style=style), soft_wrap=False)

    def move(self, action: int) -> str:
        """An action as the player's language writes it (``ablegen DH``)."""
        return self.words.show(self.game.action_name(action))

    def act(self, view: View, legal: Sequence[int]) -> int:
        _ = self._
        legal = sorted(legal)
        if self.queue:
            action = self.queue.pop(0)
            if action in legal:
                self.say(_("Next from your line: {move}").format(move=self.move(action)), "dim")
                return action
            self.queue.clear()
            self.say(_("The rest of your line no longer fits; choose again."), "yellow")
        if self.auto and len(legal) == 1:
            self.say(_("Only one choice, played for you: {move}").format(move=self.move(legal[0])), "dim")
            return legal[0]
        self.console.print(self.hooks.screen(view, self.names, _))
        notations = [self.move(a) for a in legal]
        self.say(_("legal: {moves}").format(moves=", ".join(notations)), "dim")
        prompt = self.hooks.prompt(view, _)
        extras = ["help", "rules", "hint"] + (["undo"] if self.can_undo else []) + ["quit"]
        shown_extras = ", ".join(self.words.name(e) for e in extras)
        while True:
            try:
                line = self.console.input(Text(f"{prompt} ({shown_extras}): ", style="bold"))
            except EOFError:
                raise Quit(_("input ended"), at_prompt=True) from None
            text = " ".join(line.split())
            if not text:
                continue
            command = self.words.command(text)
            if command == "quit":
                raise Quit(_("you quit"))
            if command == "help":
                self._help(view, notations)
                continue
            if command == "hint":
                self._hint(view, legal)
                continue
            if command == "rules":
                if self.show_rules:
                    self.show_rules()
                continue
            if command == "undo":
                if self.can_undo:
                    raise Undo()
                self.say(_("There is nothing to undo yet."), "yellow")
                continue
            choices = legal + ([self.leave] if self.leave is not None else [])
            try:
                actions = resolve(self.game, text, view, choices, _)
            except InputProblem as err:
                explained = None
                for english in self.words.english(text):
                    explained = explained or self.hooks.explain(view, english, _)
                self.say(explained or str(err), "red")
                continue
            except NotNow as err:
                self.say(self._why_not(view, err.action, notations), "red")
                continue
            if actions[0] == self.leave:
                if len(actions) > 1 or not self._confirm_leave():
                    continue
                return actions[0]
            self.queue = actions[1:]
            return actions[0]

    def _why_not(self, view: View, action: int, notations: list[str]) -> str:
        _ = self._
        move = self.move(action)
        try:
            reason = self.hooks.why(view, self.game.action_name(action), _)
        except NotationError:  # a chance outcome's name (UP&DOWN's toss "H", Euchre's "0"): no reason
            reason = None
        if reason:
            return _("{move} is not possible: {reason}.").format(move=move, reason=reason)
        return _("{move} is not possible now (you can: {moves}).").format(move=move, moves=", ".join(notations))

    def _confirm_leave(self) -> bool:
        _ = self._
        warning = self.hooks.leave_warning(_)
        try:
            answer = self.console.input(Text(_("{warning} Leave the game? ({yes}/{no}): ").format(
                warning=warning, yes=self.words.name("yes"), no=self.words.name("no")), style="bold yellow"))
        except EOFError:
            raise Quit(_("input ended"), at_prompt=True) from None
        return self.words.command(answer) == "yes"

    def _hint(self, view: View, legal: Sequence[int]) -> None:
        for line in hint_lines(self.game, view, legal, self._):
            self.say(line)

    def _help(self, view: View, notations: list[str]) -> None:
        _ = self._
        w = self.words
        self.say(_("Type one of: {moves}").format(moves=", ".join(notations)))
        hand = view.get("hand")
        if isinstance(hand, list) and hand and all(isinstance(c, str) for c in hand):
            self.say(_("A number picks a card by its position in your hand (the small numbers before the cards)."))
            self.say(w.legend())
        # A word of a move that is legal now, cut as short as it can be (UP&DOWN's words else).
        verbs = [n.split()[0] for n in notations if n.split()[0].isalpha() and len(n.split()[0]) > 2] or \
            [w.say("flip"), w.say("rotate {suit}", suit="S").split()[0], w.say("roll")]
        word = verbs[0]
        cut = next((word[:k] for k in range(1, len(word) + 1)
                    if all(not fold(v).startswith(fold(word[:k])) for v in set(verbs) - {word})), word)
        discard = w.say("discard {card}", card=w.show_card("2D"))
        self.say(_("Short forms: a word can be cut short ({short} for {word}) or left out ({bare} for {full}); "
                   "several moves can go on one line ({several}).").format(
            short=cut, word=word, bare="2d", full=discard, several=f"{discard} 3H"))
        if w.lang != "en":
            self.say(_("English moves and cards are understood as well (discard QH)."))
        self.say(_("Also: {rules} (the rules of the game), {hint} (the coach's estimate of each move), "
                   "{undo} (take back your last decision), {quit} (save the game and stop).").format(
            rules=w.name("rules"), hint=w.name("hint"), undo=w.name("undo"), quit=w.name("quit")))
        tip = self.hooks.hint(view, _)
        if tip:
            self.say(tip, "dim")
