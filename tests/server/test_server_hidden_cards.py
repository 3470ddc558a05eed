"""R26/R27 over the wire: over many complete games, no message to any seat ever holds a card
that seat may not see.

The allowed cards are computed from the game record (the full truth, downloaded after the game),
independently of the server's code: at round ``r`` after ``k`` steps (give-backs, then plays and
passes), seat ``s`` may see its own deal, the cards that passed between it and its exchange
partner, and every card played so far. Every state message says where it stands (``at``), so
each one is checked against exactly that moment; its hand must also be the true hand then.
Most of them come as ``change`` messages (what changed since the last state): each is checked
on its own text, and the full state the client makes of it (the test client applies it) must
hold the true hand and card counts, so a change can neither leak a card nor lose one.
Messages without ``at`` (table, presence, acks…) may hold no card at all. A spectator (a
connection with no seat, one from before the start and one from the middle of the game) may see
only the cards played so far this round, and its view holds no hand.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from typing import Any

import pytest
from server_support import Client, ServerThread, create_table, play_randomly, run

from cardverse.server.viewfilter import STATS

# A card string, but for what a joker of a play stands for ("jokers": {"RJ": "7H"}, R44): a
# declaration, not a card shown (the server writes JSON without spaces).
CARD = re.compile(r'(?<!"[RB]J":)"((?:10|[2-9JQKA])[CDHS]|[RB]J)"')
DECLARED = re.compile(r'"[RB]J":"(?:10|[2-9JQKA])[CDHS]"')

Moment = tuple[int, int]  # (round, step)


def truth(
    record: dict[str, Any],
) -> tuple[dict[Moment, list[set[str]]], dict[Moment, list[set[str]]]]:
    """For every moment: the cards each seat may see, and each seat's true hand; the cards
    public at that moment (what a spectator may see) as an extra last entry of the first."""
    players = len(record["players"])
    places = record["result"]["places"]
    allowed: dict[Moment, list[set[str]]] = {}
    hands_at: dict[Moment, list[set[str]]] = {}
    for number, round_ in enumerate(record["rounds"], start=1):
        deal = [set(hand) for hand in round_["hands"]]
        seen = [set(hand) for hand in deal]
        hands = [set(hand) for hand in deal]
        exchange = round_.get("exchange", [])
        partner: dict[int, int] = {}
        if exchange:
            order = places[number - 2]
            partner = {order[-1]: order[0]}
            if players >= 4:
                partner[order[-2]] = order[1]
        gifts = len(partner)
        for action in exchange[:gifts]:
            giver, cards = action["seat"], set(action["cards"])
            receiver = partner[giver]
            for seat in (giver, receiver):
                seen[seat] |= cards
            hands[giver] -= cards
            hands[receiver] |= cards
        back = {receiver: giver for giver, receiver in partner.items()}
        steps = [("give", a) for a in exchange[gifts:]] + [("act", a) for a in round_["actions"]]
        played: set[str] = set()
        allowed[(number, 0)] = [set(s) for s in seen] + [set()]
        hands_at[(number, 0)] = [set(h) for h in hands]
        for index, (kind, action) in enumerate(steps, start=1):
            seat, cards = action["seat"], set(action.get("cards", []))
            if kind == "give":
                to = back[seat]
                seen[seat] |= cards
                seen[to] |= cards
                hands[seat] -= cards
                hands[to] |= cards
            else:
                for other in range(players):
                    seen[other] |= cards
                played |= cards
                hands[seat] -= cards
            allowed[(number, index)] = [set(s) for s in seen] + [set(played)]
            hands_at[(number, index)] = [set(h) for h in hands]
    return allowed, hands_at


def told_by_changes(client: Client) -> bool:
    """Whether the game came to ``client`` mostly as changes (not full states)."""
    changes = sum(1 for m in client.wire if m["type"] == "change")
    return changes > sum(1 for m in client.wire if m["type"] == "state")


def check_messages(client: Client, record: dict[str, Any]) -> int:
    """Check every message ``client`` received; return how many carried cards."""
    allowed, hands = truth(record)
    with_cards = 0
    assert not client.broken, client.broken[:1]
    moment_of_v: dict[int, Moment] = {}
    for raw, message in zip(client.raw, client.messages, strict=True):
        cards = set(CARD.findall(raw))
        if message["type"] == "suggestion":  # a hint: only the seat's own cards, at its state
            moment = moment_of_v[message["v"]]
            assert cards <= hands[moment][client.seat or 0], (client.seat, moment, raw)
            continue
        if "at" in message:
            moment_of_v[message["v"]] = (message["at"]["round"], message["at"]["step"])
        if "at" not in message:
            assert not cards, (client.seat, raw)
            continue
        # a state before joining (or after leaving) is a spectator's: seat null
        seat = message["view"]["seat"]
        assert seat in (None, client.seat), (seat, client.seat)
        moment = (message["at"]["round"], message["at"]["step"])
        assert message["at"]["game"] == 1
        may_see = allowed[moment][-1 if seat is None else seat]
        assert cards <= may_see, (seat, moment, cards - may_see, raw)
        if seat is None:
            view = message["view"]
            assert view["hand"] == [] and view["exchange"] == [] and view["legal_moves"] == []
        else:
            assert set(message["view"]["hand"]) == hands[moment][seat], (seat, moment)
        assert message["view"]["hand_counts"] == [len(h) for h in hands[moment]]
        with_cards += bool(cards)
    return with_cards


async def _connect(client: Client) -> None:
    await client.connect()


CONFIGS: list[dict[str, Any]] = [
    {"preset": "standard", "players": 4, "rounds": 3},
    {"preset": "standard", "players": 3, "rounds": 2, "jokers": 2, "straights": True},
    {
        "preset": "standard",
        "players": 5,
        "rounds": 2,
        "eight_stop": True,
        "revolution": True,
        "jokers": 1,
    },
    {"preset": "cardverse", "players": 6, "rounds": 2},
    {
        "preset": "standard",
        "players": 8,
        "rounds": 2,
        "straights": True,
        "jokers": 2,
        "revolution": True,
    },
    {"preset": "cardverse", "players": 3, "rounds": 3},
    {"preset": "uecda", "players": 5, "rounds": 2, "jokers": 2},
    {"preset": "standard", "players": 7, "rounds": 2, "exchange": False, "equal_plays": False},
    {
        "preset": "standard",
        "players": 4,
        "rounds": 2,
        "straights": True,
        "first_lead": "first_seat",
    },
    {"preset": "uecda", "players": 5, "rounds": 2},
]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("repeat", [0, 1])
def test_R26_no_message_to_a_seat_holds_a_card_it_may_not_see(
    server: ServerThread, repeat: int
) -> None:
    violations = STATS["violations"]

    async def one_game(config: dict[str, Any], seed: int, bots: int) -> int:
        table = create_table(server.http, name="P0", rules=config)
        url = server.ws_url(table["table_id"])
        host = await Client(url, "P0").connect()
        await host.join(token=table["token"])
        clients = [host]
        for index in range(1, config["players"] - bots):
            client = await Client(url, f"P{index}").connect()
            reply = await client.join(name=f"P{index}")
            assert reply["type"] == "welcome", reply
            clients.append(client)
        if bots:
            assert (await host.request({"type": "add_bot", "level": "easy"}))["type"] == "ack"
        early = await Client(url, "watching from the start").connect()
        assert (await host.request({"type": "start"}))["type"] == "ack"
        spectators = [early]
        # Now and then a client asks for its full state again (as after a reload): the round's
        # log and the score sheet come with it, and must hold nothing hidden either.
        rng = random.Random(seed)
        syncs: list[asyncio.Task[None]] = []

        def over_or_sync() -> bool:
            if not syncs or rng.random() < 0.05:
                client = rng.choice(clients)
                syncs.append(asyncio.get_running_loop().create_task(client.send({"type": "sync"})))
            if rng.random() < 0.05:  # a reaction, told to everyone: it holds no card
                client = rng.choice(clients)
                react = client.send({"type": "react", "reaction": "well_played"})
                syncs.append(asyncio.get_running_loop().create_task(react))
            if rng.random() < 0.2:  # a hint, asked on turn or not (issue 10: hints)
                client = rng.choice(clients)
                ask = client.send({"type": "suggest"})
                syncs.append(asyncio.get_running_loop().create_task(ask))
            state = clients[0].last_state()
            if len(spectators) == 1 and state is not None and state["at"]["step"] >= 4:
                late = Client(url, "watching from the middle")
                spectators.append(late)
                syncs.append(asyncio.get_running_loop().create_task(_connect(late)))
            return state is not None and state["view"]["phase"] == "game_over"

        await play_randomly(clients, rng, until=over_or_sync, timeout=120)
        await asyncio.gather(*syncs)
        assert syncs, "no client asked for its full state"
        import httpx

        record = httpx.get(
            f"{server.http}/api/tables/{table['table_id']}/records/1", timeout=10
        ).json()
        checked = 0
        for client in clients:
            await client.close()
            checked += check_messages(client, record)
            assert told_by_changes(client), client.label
        assert len(spectators) == 2, "no spectator came in the middle of the game"
        for watcher in spectators:
            await watcher.close()
            seen = check_messages(watcher, record)
            assert seen > 5, "the spectator saw too few plays"
            assert told_by_changes(watcher), watcher.label
            checked += seen
        # R44: a set joker that named its card in the game named it on the wire too (whether
        # the random game made such a play at all is the record's to say)
        plays = [
            json.dumps(action, separators=(",", ":"))
            for round_ in record["rounds"]
            for action in round_.get("actions", [])
        ]
        if any(DECLARED.search(play) for play in plays):
            assert any(DECLARED.search(raw) for c in clients for raw in c.raw)
        late = spectators[-1]  # came in the middle: first a full state, with the round's log
        assert next(m for m in late.messages if m["type"] == "state").get("log") is not None
        return checked

    async def body() -> None:
        total = 0
        for index, config in enumerate(CONFIGS):
            seed = 1000 * repeat + index
            total += await one_game(config, seed, bots=(index + repeat) % 3 == 0)
        assert total > 500  # the check saw plenty of card-bearing messages

    run(body, timeout=220)
    assert STATS["violations"] == violations  # the server's own filter never had to step in
