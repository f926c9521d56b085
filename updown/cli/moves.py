"""Moves in the player's language: what the terminal shows and what it accepts, mapped to the
engines' one notation (English: ``QH``, ``discard 3H``, ``take 7``, ``name H alone``).

* **Card letters** as players of each language read them (:data:`updown.i18n.events.RANK_LETTERS`):
  J Q K A in English, B D K A in German (Bube, Dame, König, Ass), V D R A in Portuguese (valete,
  dama, rei, ás). ``DH`` is the German and Portuguese queen of hearts. Suit letters stay C D H S
  in every language (German Kreuz and Karo share a K; Portuguese copas would be English clubs);
  the help and the rules say which letter is which suit, and the suit's word (``Herz``,
  ``copas``) or symbol is accepted wherever a suit is.
* **Move words**: :data:`PHRASES` gives each English move its German and Portuguese form
  (``ablegen 3H``, ``descartar 3H``); ``{card}``, ``{suit}`` and ``{n}`` stand for a card, a suit
  letter and a number.
* **Commands** of the prompt (``help``, ``rules``, ``hint``, ``undo``, ``quit``): :data:`COMMANDS`.

English is always accepted as well. Typed words are compared without case and accents, and
German umlauts may be typed as ae, oe, ue (``wuerfeln``, ``zurueck``).

Nothing here knows a game's rules: :mod:`updown.cli.inputs` matches a typed line against the
forms of the moves that are legal now.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from updown.core.cards import Card, Suit
from updown.i18n import Translator
from updown.i18n.events import RANK_LETTERS, card_letters, suit_name

PHRASES: dict[str, dict[str, str]] = {
    "de": {
        # UP&DOWN
        "flip": "wenden", "rotate {suit}": "drehen {suit}", "roll": "würfeln",
        # Up&Down (Sueca)
        "trump {suit}": "trumpf {suit}", "turn": "aufdecken", "play": "mitspielen", "sit out": "aussetzen",
        "discard {card}": "ablegen {card}", "done": "fertig", "leave": "verlassen",
        # Euchre
        "pass": "passen", "order up": "bestellen", "order up alone": "bestellen allein",
        "pick up": "aufnehmen", "pick up alone": "aufnehmen allein", "defend alone": "allein verteidigen",
        "name {suit}": "nennen {suit}", "name {suit} alone": "nennen {suit} allein",
        # Up or Down?
        "take {n}": "nehmen {n}", "col {n}": "reihe {n}", "new": "neu", "give up {n}": "aufgeben {n}",
        "draw down": "ziehen verdeckt", "draw up": "ziehen offen",
    },
    "pt": {
        "flip": "virar", "rotate {suit}": "rodar {suit}", "roll": "lançar",
        "trump {suit}": "trunfo {suit}", "turn": "virar", "play": "jogar", "sit out": "passar",
        "discard {card}": "descartar {card}", "done": "pronto", "leave": "abandonar",
        "pass": "passo", "order up": "mandar subir", "order up alone": "mandar subir sozinho",
        "pick up": "apanhar", "pick up alone": "apanhar sozinho", "defend alone": "defender sozinho",
        "name {suit}": "nomear {suit}", "name {suit} alone": "nomear {suit} sozinho",
        "take {n}": "tirar {n}", "col {n}": "coluna {n}", "new": "nova", "give up {n}": "desistir {n}",
        "draw down": "comprar baixo", "draw up": "comprar cima",
    },
}
"""English move -> the move in German and Portuguese. Every move of the four games is here."""

COMMANDS: dict[str, dict[str, str]] = {
    "help": {"de": "hilfe", "pt": "ajuda"},
    "rules": {"de": "regeln", "pt": "regras"},
    "hint": {"de": "tipp", "pt": "dica"},
    "undo": {"de": "zurück", "pt": "desfazer"},
    "quit": {"de": "beenden", "pt": "sair"},
    "yes": {"de": "ja", "pt": "sim"},
    "no": {"de": "nein", "pt": "não"},
}
"""The prompt's own commands in German and Portuguese (English and these are accepted everywhere)."""

_MORE_COMMANDS: dict[str, tuple[str, ...]] = {
    "help": ("?",), "quit": ("exit", "q"), "yes": ("y", "j", "s"), "no": ("n",),
}

SLOTS = ("{card}", "{suit}", "{n}")


def fold(word: str) -> str:
    """A word for comparing: no case, no accents (``Würfeln`` -> ``wurfeln``)."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _spellings(word: str) -> tuple[str, ...]:
    """The ways a word may be typed: without accents, or with German ae, oe, ue, ss."""
    low = word.casefold()
    german = low.replace("ä", "ae").replace("ö", "oe").replace("ü", "ue").replace("ß", "ss")
    return tuple(dict.fromkeys((fold(word), fold(german))))


class Words:
    """The moves, cards and commands of one language (see the module docstring)."""

    def __init__(self, _: Translator):
        self._ = _
        self.lang = _.lang
        self.letters = RANK_LETTERS.get(self.lang, RANK_LETTERS["en"])
        self.phrases = PHRASES.get(self.lang, {})
        self._ranks = {letter: rank for rank, letter in RANK_LETTERS["en"].items()}
        self._ranks.update({letter: rank for rank, letter in self.letters.items()})
        self._ranks.update({str(v): v for v in range(2, 11)} | {"T": 10})
        self._suit_words = {fold(suit_name(s.letter, _)): s.letter for s in Suit}
        self._commands: dict[str, str] = {}
        for command, local in COMMANDS.items():
            for word in (command, *local.values(), *_MORE_COMMANDS.get(command, ())):
                for spelling in _spellings(word):
                    self._commands.setdefault(spelling, command)

    # -- cards and suits --------------------------------------------------------------------------
    def suit(self, token: str) -> str | None:
        """A suit's letter from its letter, symbol, English name or name in this language."""
        try:
            return Suit.parse(token).letter
        except Exception:  # noqa: BLE001 - not an English suit
            return self._suit_words.get(fold(token))

    def card(self, token: str) -> str | None:
        """A card in the engines' notation (``QH``) from ``QH``, ``q♥`` or this language's ``DH``."""
        text = token.strip()
        if len(text) < 2 or len(text) > 3:
            return None
        rank = self._ranks.get(text[:-1].upper())
        if rank is None:
            return None
        try:
            suit = Suit.parse(text[-1])
        except Exception:  # noqa: BLE001
            return None
        return str(Card(rank, suit))

    def show_card(self, card: str) -> str:
        """A card as typed in this language: ``QH`` -> ``DH`` in German."""
        return card_letters(card, self._)

    # -- moves ------------------------------------------------------------------------------------
    def say(self, english: str, **slots: str) -> str:
        """A move pattern said in this language with its slots filled: ``say("take {n}", n="N")``."""
        return self.phrases.get(english, english).format(**slots)

    def _match(self, tokens: Sequence[str], pattern: str, *, typed: bool) -> dict[str, str] | None:
        words = pattern.split()
        if len(words) != len(tokens):
            return None
        slots: dict[str, str] = {}
        for token, word in zip(tokens, words):
            if word == "{card}":
                card = self.card(token)
                if card is None:
                    return None
                slots["card"] = card
            elif word == "{suit}":
                suit = self.suit(token) if typed else (token if token in ("C", "D", "H", "S") else None)
                if suit is None:
                    return None
                slots["suit"] = suit
            elif word == "{n}":
                if not (token.isascii() and token.isdigit()):
                    return None
                slots["n"] = token
            elif (fold(token) not in _spellings(word)) if typed else token != word:
                return None
        return slots

    def show(self, notation: str) -> str:
        """A move in the engines' notation as this language shows it: ``discard QH`` -> ``ablegen DH``."""
        tokens = notation.split()
        for english, local in self.phrases.items():
            slots = self._match(tokens, english, typed=False)
            if slots is not None:
                if "card" in slots:
                    slots["card"] = self.show_card(slots["card"])
                return local.format(**slots)
        if len(tokens) == 1 and self.card(notation) == notation:
            return self.show_card(notation)
        return notation

    def forms(self, notation: str) -> list[list[str]]:
        """The ways to write a move, each as its words: this language's first, then English."""
        local = self.show(notation).split()
        english = notation.split()
        return [local] if local == english else [local, english]

    def english(self, text: str) -> list[str]:
        """A typed line in the engines' notation: each move said in this language that it is
        (Portuguese ``virar`` is UP&DOWN's flip and the Sueca's turn), then the line with this
        language's card letters made English (which may be English notation itself)."""
        tokens = text.split()
        out = []
        for english, local in self.phrases.items():
            slots = self._match(tokens, local, typed=True)
            if slots is not None:
                out.append(english.format(**slots))
        out.append(" ".join(self.card(t) or t for t in tokens))
        return list(dict.fromkeys(out))

    def same_word(self, typed: str, word: str, *, prefix: bool) -> bool:
        """Whether a typed word is ``word`` (or, with ``prefix``, starts it), case and accents aside."""
        got = fold(typed)
        if not got:
            return False
        spellings = _spellings(word)
        if got in spellings:
            return True
        return prefix and len(word) > 1 and word.isalpha() and any(s.startswith(got) for s in spellings)

    # -- the prompt's commands ----------------------------------------------------------------------
    def command(self, text: str) -> str | None:
        """``help``, ``rules``, ``hint``, ``undo``, ``quit``, ``yes`` or ``no`` if ``text`` is one,
        in any of the languages."""
        return self._commands.get(fold(text.strip()))

    def name(self, command: str) -> str:
        """A command as this language says it: ``hilfe`` for help in German."""
        return COMMANDS[command].get(self.lang, command)

    def legend(self) -> str:
        """Which letters mean which ranks and suits, in this language (for the help)."""
        _ = self._
        ranks = {11: _("jack"), 12: _("queen"), 13: _("king"), 14: _("ace")}
        rank_part = ", ".join(f"{self.letters[r]} {ranks[r]}" for r in (11, 12, 13, 14))
        suit_part = ", ".join(f"{s.letter} {suit_name(s.letter, _)} {s.symbol}" for s in Suit)
        return _("Card letters: {ranks}; suit letters: {suits}.").format(ranks=rank_part, suits=suit_part)


_BY_LANG: dict[str, Words] = {}


def words_for(_: Translator) -> Words:
    """The :class:`Words` of a translator's language (made once per language)."""
    got = _BY_LANG.get(_.lang)
    if got is None:
        got = _BY_LANG[_.lang] = Words(_)
    return got


__all__ = ["COMMANDS", "PHRASES", "Words", "fold", "words_for"]
