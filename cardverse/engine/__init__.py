"""The pure rules engine of President: standard library only, no I/O, no clock, no global random.

Everything else (notation, command line, bots, server) is built on this package's public names.
Moves are small integers (see :mod:`cardverse.engine.plays`); :mod:`cardverse.engine.actions`
gives their readable form.
"""

from .actions import Action, ActionFormatError, action_from_json, from_move, to_move
from .cards import CardError, card_name, cards_of, mask_names, parse_card, parse_cards
from .game import DealError, Game, Phase
from .options import PRESETS, OptionsError, Rules, rules_from_dict
from .plays import GIVE, PASS, STRAIGHT, PlayInfo, PlayShapeError, analyse, move_cards
from .refusals import IllegalAction, Refusal
from .rounds import Round
from .scoring import round_points, standings, title_for_place, titles_by_seat
from .views import ExchangeSeen, PlayerView, player_view

__all__ = [
    "GIVE",
    "PASS",
    "PRESETS",
    "STRAIGHT",
    "Action",
    "ActionFormatError",
    "CardError",
    "DealError",
    "ExchangeSeen",
    "Game",
    "IllegalAction",
    "OptionsError",
    "Phase",
    "PlayInfo",
    "PlayShapeError",
    "PlayerView",
    "Refusal",
    "Round",
    "Rules",
    "action_from_json",
    "analyse",
    "card_name",
    "cards_of",
    "from_move",
    "mask_names",
    "move_cards",
    "parse_card",
    "parse_cards",
    "player_view",
    "round_points",
    "rules_from_dict",
    "standings",
    "title_for_place",
    "titles_by_seat",
    "to_move",
]
