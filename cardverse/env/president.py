"""The PettingZoo AEC environment of President: :class:`PresidentEnv` (``president_v0``).

One episode is one game (``rounds`` rounds of the chosen preset and options). Agents are
``player_0 … player_{n-1}``, one per seat; the agent to act is the engine's
:attr:`~cardverse.engine.Game.current_player`. The deal of each round (and the automatic gifts of
the exchange) is made by the environment from its seeded generator; the President's and
Vice-President's give-backs (R25), seven passes (R36) and ten discards (R37) are the agents'
own, chosen card by card (:mod:`cardverse.env.action_table`).

Each observation is a ``Dict`` of ``observation`` (:data:`OBSERVATION_SIZE` numbers in 0 … 1, see
docs/env.md) and ``action_mask``, built from the seat's view only (R26): its own hand and what
every seat sees. :meth:`PresidentEnv.raw_observation` gives that view as the engine's
:class:`~cardverse.engine.PlayerView` and :meth:`PresidentEnv.raw_legal_actions` the legal
moves as :class:`~cardverse.moves.Move`, for rule-based bots.

Rewards are the points of R22 as each round ends (``reward="points"``), or, with
``reward="win_loss"``, +1 at the game's end for each seat first by total points and -1 for the
others.
"""

from __future__ import annotations

import random
import struct
from functools import reduce
from itertools import compress
from operator import and_, neg, or_
from typing import Any, Final

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

from ..engine import Game, Phase, PlayerView, Rules, player_view, public_view, standings
from ..engine.cards import card_name
from ..engine.events import (
    Discarded,
    Gave,
    OwedAction,
    Passed,
    Played,
    RevolutionChanged,
    RoundOver,
    RoundStarted,
    TrickEnded,
    TrickStateChanged,
    WentOut,
)
from ..engine.parts import REPORTS
from ..engine.plays import CARDS_MASK, DISCARD, GIVE, PASS
from ..engine.reports import FLAG
from ..moves import Move
from .action_table import (
    DONE,
    FIRST_PICK,
    FIRST_UECDA,
    NUM_ACTIONS,
    NUM_CARDS,
    PLAY_INDEX,
    PLAY_MOVES,
    action_name,
    index_of_play,
    is_pick_move,
    is_play_index,
)

MAX_SEATS = 8
CARDS = NUM_CARDS
# The observation's parts (docs/env.md), each a slice of one flat vector.
HAND = slice(0, CARDS)
PLAYED = slice(CARDS, 2 * CARDS)
TO_BEAT = slice(2 * CARDS, 3 * CARDS)
PICKED = slice(3 * CARDS, 4 * CARDS)
SEATS = 4 * CARDS  # per seat from this seat on, clockwise: cards held / 20, passed, out
SEAT_FIELDS = 3
FLAGS = SEATS + MAX_SEATS * SEAT_FIELDS
_SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")
#: the parts' trick state (engine/reports.py), a flag for each bit of the round's marks, in the
#: order of their bits: today the jack back, then the lock's clubs, diamonds, hearts and spades
MARK_NAMES = tuple(
    name
    for report in sorted(REPORTS, key=lambda report: report.shift)
    for name in (
        (report.name,)
        if report.kind == FLAG
        else tuple(f"{report.name}_{suit}" for suit in _SUIT_WORDS)
    )
)
#: where each of them is in the marks
MARK_BITS = tuple(
    bit
    for report in sorted(REPORTS, key=lambda report: report.shift)
    for bit in range(report.shift, report.mask.bit_length())
)
FLAG_NAMES = (
    "revolution",
    *MARK_NAMES,
    "phase_play",
    "phase_exchange_give",
    "owed_give",
    "owed_discard",
    "leading",
)
POINTS = FLAGS + len(FLAG_NAMES)  # per seat from this seat on: points / (players × rounds)
OBSERVATION_SIZE = POINTS + MAX_SEATS
REWARDS = ("points", "win_loss")
_NO_ACTION_BYTES = bytes(NUM_ACTIONS)
_PICKED_KINDS = GIVE | DISCARD  # the moves chosen card by card
_NO_PLAY_BYTES = bytes(FIRST_PICK)  # the mask's plays while picking: none
_NO_UECDA_BYTES = bytes(NUM_ACTIONS - FIRST_UECDA)  # nor the plays after "done"
#: the mask's bytes of eight picks, by the byte of their cards
_BYTE_ONES: Final = tuple(bytes(byte >> bit & 1 for bit in range(8)) for byte in range(256))
_NO_ACTION = np.frombuffer(_NO_ACTION_BYTES, np.int8)  # the mask of an agent not to act
#: the masks of a single legal play (mostly the pass alone), by its index: shared, read-only
_ONE_ACTION: dict[int, bytes] = {}
_ONE_ACTION_SIZE = 64
RENDER_MODES = ("ansi", "human")


# The observation is assembled from the bytes of its float32 numbers, little-endian (numpy reads
# them as such on any machine): ready-made pieces, looked up, joined, read.
_FLOAT = struct.Struct("<f")
#: the 8 numbers of each byte of a card set (bit i → 1.0 at place i), and of its last 6 bits
_BYTE_FLOATS: Final = tuple(
    b"".join(_FLOAT.pack(float(byte >> bit & 1)) for bit in range(8)) for byte in range(256)
)
_LAST_FLOATS: Final = tuple(piece[: 4 * (CARDS - 48)] for piece in _BYTE_FLOATS[: 1 << CARDS - 48])
_NO_CARDS: Final = bytes(4 * CARDS)
_JOIN: Final = bytearray().join  # pieces → one new bytearray
_FLOAT32: Final = np.dtype("<f4")  # float32, the native one on little-endian machines
_INT8: Final = np.dtype(np.int8)
_CARD_CACHE: dict[int, bytes] = {}  # card set → its 54 numbers (bounded: cleared when large)
_CARD_CACHE_SIZE = 1 << 16
_FULL_HAND = 20  # a seat's "cards held / 20" is 1 from 20 cards on
#: a seat's three numbers by (cards held, at most 20) << 2 | passed << 1 | gone out
_SEAT_FLOATS: Final = tuple(
    struct.pack("<3f", min(held / 20.0, 1.0), float(passed), float(out))
    for held in range(_FULL_HAND + 1)
    for passed in (0, 1)
    for out in (0, 1)
)
_HELD_CODE: Final = tuple(min(held, _FULL_HAND) << 2 for held in range(CARDS + 1))
_NO_SEAT = bytes(4 * SEAT_FIELDS)
#: (phase, owed, revolution, marks, no play to beat) → the numbers of the flags part
_FLAG_PIECES: dict[tuple[Phase, str, bool, int, bool], bytes] = {}
_FLAG_PIECES_SIZE = 4096


def _floats_of(cards: int) -> bytes:
    """The 54 numbers of a card set (1.0 for each card in it), as float32 bytes: seven pieces
    from the byte table."""
    table = _BYTE_FLOATS
    return b"".join(
        (
            table[cards & 255],
            table[cards >> 8 & 255],
            table[cards >> 16 & 255],
            table[cards >> 24 & 255],
            table[cards >> 32 & 255],
            table[cards >> 40 & 255],
            _LAST_FLOATS[cards >> 48],
        )
    )


def _card_floats(cards: int) -> bytes:
    """:func:`_floats_of`, kept for the card sets that come back (plays to beat, no picks)."""
    floats = _CARD_CACHE.get(cards)
    if floats is None:
        floats = _floats_of(cards)
        if len(_CARD_CACHE) >= _CARD_CACHE_SIZE:
            _CARD_CACHE.clear()
        _CARD_CACHE[cards] = floats
    return floats


def _flag_piece(phase: Phase, owed: str, revolution: bool, marks: int, no_play: bool) -> bytes:
    """The numbers of the flags part (FLAG_NAMES, in order) for a state of the game."""
    playing = phase is Phase.PLAY
    flags = [
        revolution,
        *(marks >> bit & 1 for bit in MARK_BITS),
        playing and not owed,
        phase is Phase.EXCHANGE,
        owed == "give",
        owed == "discard",
        playing and no_play,  # leading
    ]
    piece = struct.pack(f"<{len(flags)}f", *map(float, flags))
    if len(_FLAG_PIECES) >= _FLAG_PIECES_SIZE:
        _FLAG_PIECES.clear()
    _FLAG_PIECES[phase, owed, revolution, marks, no_play] = piece
    return piece


class PresidentEnv(AECEnv[str, dict[str, np.ndarray], int]):
    """President as an AEC environment (see the module's docstring and docs/env.md)."""

    metadata = {  # noqa: RUF012 (PettingZoo reads it from the class)
        "render_modes": list(RENDER_MODES),
        "name": "president_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        preset: str = "cardverse",
        players: int = 4,
        *,
        reward: str = "points",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be 'ansi', 'human' or None, not {render_mode!r}")
        self.rules = Rules.make(preset, players=players, **options)
        if self.rules.players > MAX_SEATS:
            raise ValueError(f"at most {MAX_SEATS} players")
        self.reward_kind = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(self.rules.players)]
        self.agent_name_mapping = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        observation = spaces.Box(0.0, 1.0, (OBSERVATION_SIZE,), np.float32)
        mask = spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": observation, "action_mask": mask})
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents}
        self._rng = random.Random()
        self.game: Game | None = None
        self._cached_mask: np.ndarray | None = None
        self._legal = _NO_ACTION_BYTES  # the bytes of the cached mask
        self._rewarded = False
        players = self.rules.players
        #: for each seat, the seats from it on, clockwise (the order of the per-seat parts)
        self._clockwise = tuple(
            tuple((seat + offset) % players for offset in range(players)) for seat in range(players)
        )
        self._empty_seats = _NO_SEAT * (MAX_SEATS - players)
        self._points_floats: list[bytes | None] = [None] * players
        #: each seat's three numbers (cards held, passed, gone out), rebuilt as they change;
        #: twice over, so that the seats from any one on, clockwise, are one slice
        self._seat_pieces = [_SEAT_FLOATS[0]] * (2 * players)
        self._every_seat = (1 << players) - 1
        self._changed_seats = self._every_seat

    # -- spaces -------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- episode ------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
        self.game = Game(self.rules, rng=random.Random(self._rng.getrandbits(64)))
        self._clear_round()
        self._points_floats = [None] * self.rules.players
        # the numbers of each seat's hand and of the played cards, rebuilt as they change
        self._hand_cards = [0] * self.rules.players
        self._hand_floats = [_NO_CARDS] * self.rules.players
        self._played_cards = 0
        self._played_floats = _NO_CARDS
        self._changed_seats = self._every_seat  # the seats whose piece is to be rebuilt
        self._picked = 0
        self._pick_targets: dict[int, int] | None = None
        #: the cards picked and the targets that go on from them
        self._live: tuple[int, list[int]] | None = None
        self._cached_mask = None
        self._legal = _NO_ACTION_BYTES
        self._rewarded = False  # whether some reward of the last step is not 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._agent_selector = AgentSelector(self.agents)
        self._advance()

    def _advance(self) -> None:
        """Deal while the game is between rounds; select the agent to act."""
        game = self._require()
        while game.is_chance_node:
            self._note(game.start_next_round())
        seat = game.current_player
        if seat is not None:
            self.agent_selection = self.possible_agents[seat]
        self._pick_targets = self._live = None

    def _clear_round(self) -> None:
        """Forget the public state of the round (a new one starts)."""
        self._played = 0  # every card played or discarded this round
        self._to_beat = 0  # the last play of the trick in progress
        self._passed = 0  # the seats that passed in the trick in progress, a bit set
        self._finished = 0  # the seats gone out this round, a bit set
        self._owed = ""  # "give" or "discard" while a seven pass or ten discard is owed

    def _note(self, events: list[Any]) -> None:
        """Follow the round's public state through what happened (the events every seat is
        told; the cards of a seven pass are not read), most frequent first. A play, a pass or
        going out changes that seat's part of the observations, a trick's end the part of the
        seats that had passed; the trick state, the revolution and an owed action none (the
        flags come from the game); anything else may change every seat's."""
        for event in events:
            if isinstance(event, Played):
                self._played |= event.move & CARDS_MASK
                self._to_beat = event.move
                self._changed_seats |= 1 << event.seat
            elif isinstance(event, Passed):
                self._passed |= 1 << event.seat
                self._changed_seats |= 1 << event.seat
            elif isinstance(event, TrickEnded):
                self._to_beat = 0
                self._changed_seats |= self._passed  # no longer passed
                self._passed = 0
            elif isinstance(event, (TrickStateChanged, RevolutionChanged)):
                pass
            elif isinstance(event, OwedAction):
                self._owed = event.owed
            elif isinstance(event, WentOut):
                self._finished |= 1 << event.seat
                self._changed_seats |= 1 << event.seat
            else:
                self._changed_seats = self._every_seat
                if isinstance(event, Gave):
                    self._owed = ""
                elif isinstance(event, Discarded):
                    self._played |= event.cards
                    self._owed = ""
                elif isinstance(event, RoundStarted):
                    self._clear_round()
                elif isinstance(event, RoundOver):
                    self._points_floats = [None] * self.rules.players  # the totals changed
                    if self.reward_kind == "points":
                        self._rewarded = True
                        for seat, points in enumerate(event.points):
                            self.rewards[self.possible_agents[seat]] += float(points)

    def _require(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        if game is None:
            game = self._require()  # raises
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:  # rewards are 0 but after a round's end
            self._clear_rewards()
            self._rewarded = False
        if action is None:
            raise ValueError(f"{agent} is to act: an action index is needed, not None")
        index = int(action)
        if self._cached_mask is None:
            self._mask()
        if not 0 <= index < NUM_ACTIONS or not self._legal[index]:
            raise ValueError(f"action {index} ({self._name(index)}) is not legal for {agent} now")
        move = PLAY_MOVES[index] if is_play_index(index) else self._move_for(index)
        self._cached_mask = None
        if move is not None:
            self._picked = 0
            # the mask holds exactly the legal moves of this state: no second check is needed
            self._note(game.apply_trusted(move))
            if game.is_terminal:
                self._finish(game)
            elif game.is_chance_node:
                self._advance()
            else:
                self.agent_selection = self.possible_agents[game.turn]  # type: ignore[index]
                self._pick_targets = self._live = None
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    def _name(self, index: int) -> str:
        return action_name(index) if 0 <= index < NUM_ACTIONS else "out of range"

    def _move_for(self, index: int) -> int | None:
        """The move an index makes now, or None for a pick that leaves the give unfinished."""
        if is_play_index(index):
            return PLAY_MOVES[index]
        gives = self._gives()
        if index < DONE:
            picked = self._picked = self._picked | 1 << (index - FIRST_PICK)
            # the targets going on from the cards picked are among those that did before
            live = self._live
            live = self._live = (picked, _going_on(live[1] if live else list(gives), picked))
            if any(map(picked.__ne__, live[1])):
                return None  # more cards may follow: the same agent picks again
        return gives[self._picked]

    def _gives(self, moves: list[int] | None = None) -> dict[int, int]:
        """The legal gives or discards of the agent to act, by their cards (picks' targets);
        ``moves``: its legal moves when the caller has them already."""
        gives = self._pick_targets
        if gives is None:
            if moves is None:
                moves = self._require().legal_moves()
            # when a give or a discard is owed, the legal moves are those only (none hidden:
            # R39 hides others' gives in views, never the moves of the seat to act)
            gives = self._pick_targets = dict(
                zip(map(CARDS_MASK.__and__, moves), moves, strict=True)
            )
            self._live = (0, list(gives))
        return gives

    def _targets(self) -> list[int]:
        return list(self._gives())

    def _finish(self, game: Game) -> None:
        if self.reward_kind == "win_loss":
            self._rewarded = True
            places = standings(game.points)
            for seat, agent in enumerate(self.possible_agents):
                self.rewards[agent] = 1.0 if places[seat] == 0 else -1.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos = {
            agent: {"points": game.points[seat], "place": standings(game.points)[seat]}
            for seat, agent in enumerate(self.possible_agents)
        }
        self.agent_selection = self._agent_selector.next()

    # -- what an agent sees -------------------------------------------------------------------

    def _mask(self) -> np.ndarray:
        """The legal indices of the agent to act (computed once per state, handed out
        read-only: nobody changes it)."""
        mask = self._cached_mask
        if mask is None:
            legal = self._legal = self._compute_mask()
            mask = self._cached_mask = np.frombuffer(legal, _INT8)  # bytes: read-only
        return mask

    def _compute_mask(self) -> bytes:
        """The mask's bytes, 1 at each legal index: a play's index straight from the table of
        plays (PLAY_INDEX), a give's or a discard's next picks from its targets."""
        game = self._require()
        if game.current_player is None:
            return _NO_ACTION_BYTES
        if self._pick_targets is not None:  # a give or a discard is being picked
            return self._pick_mask(self._pick_targets)
        moves = game.legal_moves()
        if len(moves) == 1 and not moves[0] & _PICKED_KINDS:  # often: the pass alone
            only = PLAY_INDEX[moves[0]]
            alone = _ONE_ACTION.get(only)
            if alone is None:
                if len(_ONE_ACTION) >= _ONE_ACTION_SIZE:
                    _ONE_ACTION.clear()
                alone = _ONE_ACTION[only] = bytes(only) + b"\1" + bytes(NUM_ACTIONS - only - 1)
            return alone
        if moves and moves[0] & _PICKED_KINDS:  # a give or a discard is owed (is_pick_move)
            return self._pick_mask(self._gives(moves))
        mask = bytearray(NUM_ACTIONS)
        play_index = PLAY_INDEX
        for move in moves:
            mask[play_index[move]] = 1
        return bytes(mask)

    def _pick_mask(self, gives: dict[int, int]) -> bytes:
        """The mask while a give or a discard is picked: the next card of each legal one that
        goes on from the cards picked so far, and "done" when those make one already."""
        picked = self._picked
        live = self._live
        if live is None or live[0] != picked:
            live = self._live = (picked, _going_on(list(gives), picked))
        rests = live[1]
        if picked:
            rests = list(map(picked.__xor__, rests))
        # the next pick of each: the lowest card of what it has beyond the cards picked
        nexts = reduce(or_, map(and_, rests, map(neg, rests)), 0)
        table = _BYTE_ONES
        return b"".join(
            (
                _NO_PLAY_BYTES,
                table[nexts & 255],
                table[nexts >> 8 & 255],
                table[nexts >> 16 & 255],
                table[nexts >> 24 & 255],
                table[nexts >> 32 & 255],
                table[nexts >> 40 & 255],
                table[nexts >> 48][: CARDS - 48],
                b"\1" if picked and 0 in rests else b"\0",  # "done"
                _NO_UECDA_BYTES,
            )
        )

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self.game
        if game is None:
            game = self._require()  # raises
        seat = self.agent_name_mapping[agent]
        if game.current_player == seat and not game.is_terminal:
            mask = self._cached_mask
            if mask is None:
                mask = self._mask()
        else:
            mask = _NO_ACTION
        return {"observation": self._observation(game, seat), "action_mask": mask}

    def _observation(self, game: Game, seat: int) -> np.ndarray:
        """The seat's observation: its own hand and the public state of the game (R26).

        Built as the bytes of its float32 numbers, then read by numpy in one go, from pieces
        kept while they hold (the hand's and the played cards' numbers, each seat's three, the
        points) and tables of ready-made ones (a byte of cards' eight numbers, the flags).
        ``tests/test_env_fast_path.py`` checks it against the plain computation."""
        hands = game.hands
        hand = hands[seat]
        if hand != self._hand_cards[seat]:
            self._hand_cards[seat] = hand
            self._hand_floats[seat] = _floats_of(hand)
        played = self._played
        if played != self._played_cards:
            self._played_cards = played
            self._played_floats = _floats_of(played)
        to_beat = self._to_beat & CARDS_MASK
        picked = self._picked if game.current_player == seat else 0
        cache = _CARD_CACHE
        parts = [
            self._hand_floats[seat],
            self._played_floats,
            cache.get(to_beat) or _card_floats(to_beat),
            cache.get(picked) or _card_floats(picked),
        ]
        pieces = self._seat_pieces
        changed = self._changed_seats
        if changed:  # the seats that played or passed since (every seat after anything else)
            passed = self._passed
            finished = self._finished
            held_code = _HELD_CODE
            players = self.rules.players
            while changed:
                low = changed & -changed
                other = low.bit_length() - 1
                pieces[other] = pieces[other + players] = _SEAT_FLOATS[
                    held_code[hands[other].bit_count()]
                    | (passed >> other & 1) << 1
                    | finished >> other & 1
                ]
                changed ^= low
            self._changed_seats = 0
        parts += pieces[seat : seat + self.rules.players]  # from this seat on, clockwise
        parts.append(self._empty_seats)
        state = (game.phase, self._owed, game.revolution, game.marks, not self._to_beat)
        flags = _FLAG_PIECES.get(state)
        if flags is None:
            flags = _flag_piece(*state)
        parts.append(flags)
        points = self._points_floats[seat]
        if points is None:
            points = self._points_floats[seat] = self._seat_points(game, seat)
        parts.append(points)
        return np.frombuffer(_JOIN(parts), _FLOAT32)  # a new bytearray: writable, its own

    def _seat_points(self, game: Game, seat: int) -> bytes:
        """The points part of the seat's observation (it changes only as a round ends)."""
        scale = self.rules.players * self.rules.rounds
        totals = game.points
        values = [totals[other] / scale for other in self._clockwise[seat]]
        return struct.pack(f"<{MAX_SEATS}f", *values, *[0.0] * (MAX_SEATS - len(values)))

    def raw_observation(self, agent: str) -> PlayerView:
        """The seat's view as the engine gives it to bots (R26): hand, public state, legal moves."""
        return player_view(self._require(), self.agent_name_mapping[agent])

    def raw_legal_actions(self, agent: str) -> list[Move]:
        """The agent's legal moves as :class:`~cardverse.moves.Move` (empty when not to act).

        A give or a discard is one move here; :meth:`action_indices` gives its picks."""
        game = self._require()
        if game.current_player != self.agent_name_mapping[agent]:
            return []
        return [Move(code) for code in game.legal_moves()]

    def action_indices(self, move: Move | int) -> list[int]:
        """The action indices that make ``move``: one for a play or a pass; for a give or a
        discard the card picks (from the next card not yet picked) and "done" when needed."""
        code = int(move)
        if not is_pick_move(code):
            return [index_of_play(code)]
        cards = code & CARDS_MASK
        if not _prefix(self._picked, cards):
            raise ValueError(f"{Move(code)} does not continue the cards picked so far")
        rest = cards & ~self._picked
        picks = []
        while rest:
            low = rest & -rest
            picks.append(FIRST_PICK + low.bit_length() - 1)
            rest ^= low
        targets = self._targets()
        if any(t != cards and t & cards == cards and _prefix(cards, t) for t in targets):
            picks.append(DONE)
        return picks

    # -- rendering ----------------------------------------------------------------------------

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        game = self._require()
        lines = [f"round {game.round_number}/{self.rules.rounds}, phase {game.phase}"]
        view = public_view(game, history=False)
        plays = [move for _, move in view.trick if move != PASS]
        lines.append("to beat: " + (str(Move(plays[-1])) if plays else "nothing (a lead)"))
        for seat, agent in enumerate(self.possible_agents):
            marks = " <- to act" if game.current_player == seat else ""
            held = " ".join(card_name(c) for c in _cards(game.hand(seat)))
            lines.append(f"{agent}: {game.points[seat]:>3} pts  {held}{marks}")
        return "\n".join(lines)

    def close(self) -> None:
        pass


def _going_on(targets: list[int], picked: int) -> list[int]:
    """The targets that go on from ``picked`` (:func:`_prefix`: the cards picked are their lowest
    cards), filtered in C (itertools and the int methods): gives can number hundreds."""
    if not picked:
        return targets
    below = (1 << picked.bit_length()) - 1
    return list(compress(targets, map(picked.__eq__, map(below.__and__, targets))))


def _prefix(picked: int, target: int) -> bool:
    """Whether ``picked`` is the lowest cards of ``target`` (picks go in rising card order)."""
    if picked & ~target:
        return False
    rest = target & ~picked
    return not rest or not picked or picked.bit_length() <= (rest & -rest).bit_length() - 1


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
