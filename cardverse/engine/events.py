"""What happened: the typed events that :meth:`Game.apply` returns (and the round start reports).

Every change of a game is told by these values, in the order it happened, so that the server,
the views, the records and the table page narrate them instead of re-deriving them. Cards are bit
sets. :func:`for_seat` hides what one seat may not see (R26, R39): the cards of a seven pass or an
exchange gift between two other seats.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .reports import Report

GIVE_OWED: Final = "give"
DISCARD_OWED: Final = "discard"

FINISH: Final = "finish"  # an ordinary going out: the highest free place (R20)
LAST: Final = "last"  # the one seat left holding cards takes the place that is left (R20, R40)
# A part that places a seat otherwise names its own ``how`` (``Part.finish_how``: R34, R35).


class Played(NamedTuple):
    seat: int
    move: int

    @property
    def kind(self) -> str:
        return "played"


class Passed(NamedTuple):
    seat: int

    @property
    def kind(self) -> str:
        return "passed"


class TrickEnded(NamedTuple):
    """A trick is over: won by ``winner`` (or cleared by their play); ``leader`` leads next."""

    winner: int
    leader: int
    cleared: bool

    @property
    def kind(self) -> str:
        return "trick_ended"


class RevolutionChanged(NamedTuple):
    on: bool

    @property
    def kind(self) -> str:
        return "revolution"


class TrickStateChanged(NamedTuple):
    """A part's state of the trick changed (R39): a jack back came on or went, a lock came on.
    Its kind is the report's name; its value is read as the report says (reports.py)."""

    report: Report
    value: int

    @property
    def kind(self) -> str:
        return self.report.name


class OwedAction(NamedTuple):
    """A seven pass (``give``) or ten discard (``discard``) that ``seat`` must make now."""

    seat: int
    owed: str
    number: int  # how many cards
    receiver: int  # the seat a give goes to; -1 for a discard

    @property
    def kind(self) -> str:
        return "owed"


class Gave(NamedTuple):
    """A seven pass (R36); ``cards`` is 0 in the copy of a seat that may not see them."""

    seat: int
    receiver: int
    cards: int
    number: int  # how many cards

    @property
    def kind(self) -> str:
        return "gave"


class Discarded(NamedTuple):
    seat: int
    cards: int

    @property
    def kind(self) -> str:
        return "discarded"


class WentOut(NamedTuple):
    """``seat`` took 0-based ``place``; ``how`` is finish, last or the ``finish_how`` of the part
    that placed it (a forbidden finish, a fall: R34, R35)."""

    seat: int
    place: int
    how: str

    @property
    def kind(self) -> str:
        return "went_out"


class RoundStarted(NamedTuple):
    round: int
    leader: int

    @property
    def kind(self) -> str:
        return "round_started"


class ExchangeGift(NamedTuple):
    """Cards passed in the exchange (R25): the automatic gift, or the give-back."""

    giver: int
    receiver: int
    cards: int
    number: int  # how many cards
    automatic: bool

    @property
    def kind(self) -> str:
        return "exchange"


class RoundOver(NamedTuple):
    round: int
    places: tuple[int, ...]  # seats by place, 1st first
    titles: tuple[str, ...]  # per seat
    points: tuple[int, ...]  # per seat, this round
    totals: tuple[int, ...]  # per seat, so far

    @property
    def kind(self) -> str:
        return "round_over"


class GameOver(NamedTuple):
    totals: tuple[int, ...]
    standings: tuple[int, ...]  # each seat's 0-based final place, ties shared (R22)

    @property
    def kind(self) -> str:
        return "game_over"


Event = (
    Played
    | Passed
    | TrickEnded
    | RevolutionChanged
    | TrickStateChanged
    | OwedAction
    | Gave
    | Discarded
    | WentOut
    | RoundStarted
    | ExchangeGift
    | RoundOver
    | GameOver
)


def for_seat(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` may see it (``None``: a spectator who sees no hidden card)."""
    if isinstance(event, Gave) and seat not in (event.seat, event.receiver):
        return event._replace(cards=0)
    if isinstance(event, ExchangeGift) and seat not in (event.giver, event.receiver):
        return event._replace(cards=0)
    return event


def event_to_json(event: Event) -> dict[str, object]:
    """A JSON-ready form: cards as text, moves as action objects (notation.md)."""
    from .actions import from_move
    from .cards import SUIT_NAMES, mask_names

    out: dict[str, object] = {"kind": event.kind}
    if isinstance(event, TrickStateChanged):
        out[event.report.event_key] = event.report.to_json(event.value)
        return out
    for name, value in event._asdict().items():
        if name == "move":
            out["action"] = from_move(int(value)).to_json(with_seat=False)
        elif name == "cards":
            out["cards"] = mask_names(int(value)) if value else None
        elif name == "suits":
            out["suits"] = [SUIT_NAMES[s] for s in range(4) if int(value) >> s & 1]
        elif isinstance(value, tuple):
            out[name] = list(value)
        else:
            out[name] = value
    return out


__all__ = [
    "Discarded",
    "Event",
    "ExchangeGift",
    "GameOver",
    "Gave",
    "OwedAction",
    "Passed",
    "Played",
    "RevolutionChanged",
    "RoundOver",
    "RoundStarted",
    "TrickEnded",
    "TrickStateChanged",
    "WentOut",
    "event_to_json",
    "for_seat",
]
