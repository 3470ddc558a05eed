"""Moves as short text, in the manner of python-chess's UCI strings: :class:`Move`.

The engine's moves are integers (:mod:`cardverse.engine.plays`) and their JSON form is
notation.md's action object; this module gives every kind of action a one-line text that reads
back to the same move, for bot writers, logs, tests and the environment (:mod:`cardverse.env`):

========================  ==========================================================
text                      action
========================  ==========================================================
``9H 9S``                 play a pair of nines (cards in any order, any case)
``9H RJ``                 play a pair with a joker: in a set a joker takes the set's rank
``5H 6H 7H``              play a straight (R32)
``5H 6H BJ=7``            play a straight in which the black joker stands for a 7
``7C 7D RJ=7H``           play a set in which the red joker stands for the 7♥ (R44: under the
                          suit lock with jokers a set's joker names a suit the set lacks)
``pass``                  pass
``give 4C 9D``            give cards: an exchange give-back (R25) or a seven pass (R36)
``give ? ?``              a give whose cards the reader may not see: one ``?`` per card
``discard 5H``            discard cards: a ten discard (R37)
========================  ==========================================================

``str(move)`` writes the canonical form: cards in the engine's order (rank, then suit, jokers
last), upper case. ``Move.parse(str(move)) == move`` for every move, and a text that is not a
well-formed move raises :class:`~cardverse.engine.ActionFormatError` (a ``ValueError``) that says
why. Whether a move is *legal* is the game's question (:meth:`Game.check`, :meth:`Game.apply`).

>>> move = Move.parse("9s 9h")
>>> str(move), move.kind, move.cards
('9H 9S', 'play', ('9H', '9S'))
>>> str(Move.parse("BJ=7 5h 6H")), str(Move.parse("PASS")), str(Move.parse("give ? ?"))
('5H 6H BJ=7', 'pass', 'give ? ?')
>>> Move.parse("9H 9H")
Traceback (most recent call last):
...
cardverse.engine.actions.ActionFormatError: card 9H is listed twice in one action
"""

from __future__ import annotations

from dataclasses import dataclass

from .engine import Action, ActionFormatError, from_move, to_move
from .engine.plays import PASS, hidden_give

PASS_WORD = "pass"
GIVE_WORD = "give"
DISCARD_WORD = "discard"
HIDDEN_CARD = "?"


@dataclass(frozen=True, order=True)
class Move:
    """One action of any kind, as the engine's move integer :attr:`code`.

    >>> from cardverse.engine import Game, Rules
    >>> game = Game(Rules.make("cardverse", players=4), seed=7)
    >>> moves = [Move(code) for code in game.legal_moves()]
    >>> all(Move.parse(str(m)) == m for m in moves)
    True
    >>> first = moves[0]
    >>> game.apply(int(first)) and None  # the engine takes the integer
    """

    code: int

    # -- reading --------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read a move's text (see the module's table); raises ``ActionFormatError``."""
        if not isinstance(text, str):
            raise ActionFormatError(f"a move is text, not {text!r}")
        words = text.split()
        if not words:
            raise ActionFormatError("an empty move: write cards, 'pass', 'give …' or 'discard …'")
        head = words[0].lower()
        if head == PASS_WORD:
            if len(words) > 1:
                raise ActionFormatError("a pass carries no cards")
            return cls(PASS)
        if head in (GIVE_WORD, DISCARD_WORD):
            given = words[1:]
            if head == GIVE_WORD and given and all(c == HIDDEN_CARD for c in given):
                return cls(hidden_give(len(given)))
            if HIDDEN_CARD in given:
                raise ActionFormatError("a give is either all '?' (unseen cards) or all cards")
            for card in given:
                if "=" in card:
                    raise ActionFormatError(f"a {head} declares no joker ranks ({card!r})")
            return cls(to_move(Action(head, tuple(given))))
        cards: list[str] = []
        jokers: dict[str, str] = {}
        for word in words:
            card, equals, rank = word.partition("=")
            if equals:
                if not rank:
                    raise ActionFormatError(
                        f"{word!r}: say the rank after '=' (BJ=7), or in a set the card (BJ=7H)"
                    )
                jokers[card] = rank
            cards.append(card)
        return cls(to_move(Action("play", tuple(cards), jokers)))

    @classmethod
    def from_action(cls, action: Action) -> Move:
        """The move of a readable action (notation.md's JSON object, read)."""
        if action.count is not None:
            return cls(hidden_give(action.count))
        return cls(to_move(action))

    # -- what it is -------------------------------------------------------------------------

    def action(self, seat: int | None = None) -> Action:
        """The readable action (``to_json()`` gives notation.md's JSON object)."""
        return from_move(self.code, seat)

    @property
    def kind(self) -> str:
        """``play``, ``pass``, ``give`` or ``discard``."""
        return self.action().kind

    @property
    def cards(self) -> tuple[str, ...]:
        """The cards, by name, in the engine's order (empty for a pass or an unseen give)."""
        return self.action().cards

    @property
    def jokers(self) -> dict[str, str]:
        """The rank each joker of a straight stands for, or the card each joker of a set stands
        for when it names a suit (R44); empty otherwise."""
        return dict(self.action().jokers)

    def __int__(self) -> int:
        return self.code

    def __index__(self) -> int:
        return self.code

    def __str__(self) -> str:
        action = self.action()
        if action.kind == PASS_WORD:
            return PASS_WORD
        if action.count is not None:
            return " ".join([GIVE_WORD] + [HIDDEN_CARD] * action.count)
        words = [f"{c}={action.jokers[c]}" if c in action.jokers else c for c in action.cards]
        if action.kind in (GIVE_WORD, DISCARD_WORD):
            words.insert(0, action.kind)
        return " ".join(words)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


def legal_moves(game: object) -> list[Move]:
    """The legal moves of a :class:`~cardverse.engine.Game` (or a round), as :class:`Move`.

    >>> from cardverse.engine import Game, Rules
    >>> game = Game(Rules.make("standard", players=4), seed=1)
    >>> [str(m) for m in legal_moves(game)][:3]
    ['3C', '4S', '7H']
    """
    moves = getattr(game, "legal_moves", None)
    if moves is None:
        raise TypeError(f"{type(game).__name__} has no legal_moves()")
    return [Move(code) for code in moves()]


__all__ = ["Move", "legal_moves"]
