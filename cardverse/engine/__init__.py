"""The pure rules engine of President: standard library only, no I/O, no clock, no global random.

Everything else (notation, command line, bots, server) is built on this package's public names.
Moves are small integers (see :mod:`cardverse.engine.plays`); :mod:`cardverse.engine.actions`
gives their readable form.
"""

# The compiled build (cardverse/_native.py) comes first on this package's path when it is used;
# read from sys.modules, as the engine imports nothing of the other layers.
import sys as _sys

_native = _sys.modules.get("cardverse._native")
if _native is not None:
    __path__[:0] = _native.compiled_path("engine")
del _sys, _native


from .actions import Action, ActionFormatError, action_from_json, from_move, to_move
from .cards import CardError, card_name, cards_of, mask_names, parse_card, parse_cards
from .events import Event, event_to_json, for_seat
from .game import DealError, Game, Phase
from .options import PRESETS, OptionsError, Rules, options_table, rules_from_dict
from .order import clearing_rank, order_reversed, strength
from .plays import DISCARD, GIVE, PASS, STRAIGHT, PlayInfo, PlayShapeError, analyse, move_cards
from .refusals import IllegalAction, Refusal
from .rounds import Round
from .ruleset import Ruleset, ruleset_for
from .scoring import round_points, standings, title_for_place, titles_by_seat
from .views import (
    ExchangeSeen,
    GiveSeen,
    PlayerView,
    PublicView,
    SeatView,
    player_view,
    public_view,
)

__all__ = [
    "DISCARD",
    "GIVE",
    "PASS",
    "PRESETS",
    "STRAIGHT",
    "Action",
    "ActionFormatError",
    "CardError",
    "DealError",
    "Event",
    "ExchangeSeen",
    "Game",
    "GiveSeen",
    "IllegalAction",
    "OptionsError",
    "Phase",
    "PlayInfo",
    "PlayShapeError",
    "PlayerView",
    "PublicView",
    "Refusal",
    "Round",
    "Rules",
    "Ruleset",
    "SeatView",
    "action_from_json",
    "analyse",
    "card_name",
    "cards_of",
    "clearing_rank",
    "event_to_json",
    "for_seat",
    "from_move",
    "mask_names",
    "move_cards",
    "options_table",
    "order_reversed",
    "parse_card",
    "parse_cards",
    "player_view",
    "public_view",
    "round_points",
    "rules_from_dict",
    "ruleset_for",
    "standings",
    "strength",
    "title_for_place",
    "titles_by_seat",
    "to_move",
]
