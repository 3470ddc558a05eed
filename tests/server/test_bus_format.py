"""The bus's message format (cardverse.server.bus): what one node posts to another in a turn
comes out at the other end as posted, in order, with frames and client texts carried as they
are (never quoted into JSON), and a malformed message is dropped without harm."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from cardverse.server.bus import Bus, records


class Recorder:
    """A receiver that keeps what reached it, in order."""

    def __init__(self) -> None:
        self.got: list[tuple[Any, ...]] = []

    def envelope(self, envelope: dict[str, Any]) -> None:
        self.got.append(("envelope", envelope))

    def frame(self, link: str, text: str) -> None:
        self.got.append(("frame", link, text))

    def closed(self, link: str, code: int, reason: str) -> None:
        self.got.append(("closed", link, code, reason))

    def message(self, node: str, link: str, text: str) -> None:
        self.got.append(("message", node, link, text))

    def unheard(self, node: str) -> None:
        self.got.append(("unheard", node))


def _one_turn(post: Any) -> list[tuple[str, str, str]]:
    """What a bus of node ``a`` publishes after ``post(bus)`` in one loop turn: (node,
    channel, text) per message."""

    async def body() -> list[tuple[str, str, str]]:
        bus = Bus(None, "a", Recorder())
        post(bus)
        await asyncio.sleep(0)  # the end of the turn
        out = []
        for node, text, futures in bus._unsent:  # no Redis: the messages wait to be written
            assert not futures  # nobody asked to hear how many received it
            out.append((node, Bus.channel(node), text))
        return out

    return asyncio.run(body())


FRAME_TEXT = '{"type":"change","name":"Zoë \\"Z\\" 東","text":"a\\nb"}'
CLIENT_TEXT = '{"type": "play",\n "cards": ["3S"], "seq": 4}'  # a client's own whitespace


def test_a_turns_records_to_one_node_arrive_in_order_as_posted() -> None:
    def post(bus: Bus) -> None:
        bus.frame("b", "link1", FRAME_TEXT)
        bus.post("b", {"op": "attach", "t": "table", "c": "link2", "from": "a", "watch": False})
        bus.message("b", "link2", CLIENT_TEXT)
        bus.close_link("b", "link1", 1012, "the table moved: reconnect")
        bus.frame("b", "link3", "")

    published = _one_turn(post)
    assert [(node, channel) for node, channel, _ in published] == [("b", "cardverse:node:b")]
    text = published[0][2]
    assert FRAME_TEXT in text and CLIENT_TEXT in text  # carried as they are, not re-quoted
    receiver = Recorder()
    Bus(None, "b", receiver)._dispatch(text.encode())
    assert receiver.got == [
        ("frame", "link1", FRAME_TEXT),
        ("envelope", {"op": "attach", "t": "table", "c": "link2", "from": "a", "watch": False}),
        ("message", "a", "link2", CLIENT_TEXT),
        ("closed", "link1", 1012, "the table moved: reconnect"),
        ("frame", "link3", ""),
    ]


def test_a_turn_makes_one_message_per_node() -> None:
    def post(bus: Bus) -> None:
        for index in range(3):
            bus.frame("b", f"l{index}", FRAME_TEXT)
            bus.frame("c", f"m{index}", FRAME_TEXT)

    published = _one_turn(post)
    assert [node for node, _, _ in published] == ["b", "c"]
    for node, _, text in published:
        sender, items = records(text)
        assert sender == "a"
        assert [(kind, fields[0]) for kind, fields, _ in items] == [
            ("F", f"{'l' if node == 'b' else 'm'}{i}") for i in range(3)
        ]


def test_a_malformed_message_is_dropped_and_what_came_before_it_stands() -> None:
    good = "a\n" + f"F1 {len(FRAME_TEXT)}\n{FRAME_TEXT}"
    for bad in (
        b"\xff\xfe",  # not UTF-8
        b"no sender line",
        (good + "F2 999\nshort").encode(),  # longer than the message
        (good + "F2 x\n").encode(),  # no length
        (good + "C3 notanumber 0\n").encode(),  # a close without its code
        (good + "J2\n[]").encode(),  # an envelope that is not an object
        (good + "Q1 0\n").encode(),  # an unknown kind
    ):
        receiver = Recorder()
        Bus(None, "b", receiver)._dispatch(bad)
        assert receiver.got in ([], [("frame", "1", FRAME_TEXT)]), bad


def test_only_a_post_that_asks_is_told_how_many_heard_it() -> None:
    async def body() -> None:
        bus = Bus(None, "a", Recorder())
        assert bus.post("b", {"op": "detach", "c": "x", "from": "a"}) is None
        asked = bus.post("b", {"op": "attach", "c": "y", "from": "a"}, heard=True)
        assert asked is not None and not asked.done()
        await asyncio.sleep(0)
        [(_, text, futures)] = bus._unsent
        assert futures == [asked]
        _, items = records(text)
        assert [json.loads(payload)["op"] for _, _, payload in items] == ["detach", "attach"]

    asyncio.run(body())
