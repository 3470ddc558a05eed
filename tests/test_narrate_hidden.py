"""The protocol's events hide passed cards exactly as the engine's ``for_seat`` does (R26, R36,
R25): the server's narration asks the engine who may see a pass, and carries the cards only
for those seats (``_private``), which the view filter resolves per recipient."""

from __future__ import annotations

from cardverse.engine.cards import mask_names
from cardverse.engine.events import ExchangeGift, Gave, for_seat
from cardverse.server.viewfilter import resolve_private
from cardverse.tabletalk.narrate import protocol_events

CARDS = 0b1011 << 8


def _seen_by(told: dict[str, object], seat: int | None) -> object:
    return resolve_private([told], seat)[0].get("cards")


def test_R36_a_seven_pass_is_seen_only_by_the_seats_for_seat_names() -> None:
    event = Gave(seat=2, receiver=3, cards=CARDS, number=3)
    [told] = protocol_events([event], players=5)
    for seat in (None, *range(5)):
        sees = for_seat(event, seat) is event
        assert _seen_by(told, seat) == (mask_names(CARDS) if sees else None), seat
    assert "cards" not in told  # nobody else gets them, not even in the shared part


def test_R25_a_give_back_is_seen_only_by_the_pair() -> None:
    event = ExchangeGift(giver=0, receiver=4, cards=CARDS, number=3, automatic=False)
    [told] = protocol_events([event], players=6)
    assert told["_private"]["seats"] == [0, 4]
    for seat in (None, *range(6)):
        sees = for_seat(event, seat) is event
        assert _seen_by(told, seat) == (mask_names(CARDS) if sees else None), seat
