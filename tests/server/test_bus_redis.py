"""The bus's own connections to Redis (cardverse.server.redislink, cardverse.server.bus) on a
real redis-server: messages arrive in order, a message to nobody is reported, a lost connection
is made again (what was not answered is sent again, the subscription is made again and said
so), and what is not Redis speaking ends the connection with a line in the log, not a crash."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
import redis
from test_bus_format import FRAME_TEXT, Recorder

from cardverse.server.bus import Bus
from cardverse.server.redislink import RedisLink, command, connect

pytestmark = pytest.mark.timeout(120)


async def _until(check: Any, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "not in time"
        await asyncio.sleep(0.01)


def test_messages_arrive_in_order_and_one_to_nobody_is_reported(redis_server: Any) -> None:
    async def body() -> None:
        got_a, got_b = Recorder(), Recorder()
        a, b = Bus(redis_server.url, "a", got_a), Bus(redis_server.url, "b", got_b)
        a.start()
        b.start()
        try:
            await asyncio.wait_for(b.connected.wait(), 30)
            heard = a.post("b", {"op": "attach", "c": "l1", "from": "a"}, heard=True)
            for index in range(50):
                a.frame("b", "l1", f"{FRAME_TEXT}{index}")
                if index % 7 == 0:
                    await asyncio.sleep(0)  # several turns, several messages
            assert heard is not None and await asyncio.wait_for(heard, 30) == 1
            await _until(lambda: len(got_b.got) == 51)
            assert got_b.got[0] == ("envelope", {"op": "attach", "c": "l1", "from": "a"})
            assert got_b.got[1:] == [("frame", "l1", f"{FRAME_TEXT}{i}") for i in range(50)]
            nobody = a.post("gone", {"op": "detach", "c": "x", "from": "a"}, heard=True)
            assert nobody is not None and await asyncio.wait_for(nobody, 30) == 0
            await _until(lambda: ("unheard", "gone") in got_a.got)
        finally:
            await a.close()
            await b.close()

    asyncio.run(body())


def test_lost_connections_are_made_again_and_nothing_posted_is_lost(redis_server: Any) -> None:
    async def body() -> None:
        got_b = Recorder()
        a, b = Bus(redis_server.url, "a", Recorder()), Bus(redis_server.url, "b", got_b)
        reconnected: list[str] = []
        b.on_reconnect = lambda: reconnected.append("b")
        a.start()
        b.start()
        client = redis.Redis.from_url(redis_server.url)
        try:
            await asyncio.wait_for(b.connected.wait(), 30)
            a.frame("b", "l1", "before")
            await _until(lambda: len(got_b.got) == 1)
            client.client_kill_filter(_type="pubsub")  # the subscription's connection
            client.client_kill_filter(_type="normal", skipme=True)  # the publisher's
            await _until(lambda: reconnected == ["b"])
            assert b.reconnects == 1
            heard = a.post("b", {"op": "attach", "c": "l2", "from": "a"}, heard=True)
            a.frame("b", "l2", "after")
            assert heard is not None and await asyncio.wait_for(heard, 30) == 1
            await _until(lambda: len(got_b.got) == 3)
            assert got_b.got[1:] == [
                ("envelope", {"op": "attach", "c": "l2", "from": "a"}),
                ("frame", "l2", "after"),
            ]
        finally:
            client.close()
            await a.close()
            await b.close()

    asyncio.run(body())


def test_what_is_not_redis_speaking_ends_the_connection_with_a_logged_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def body() -> None:
        lost: list[RedisLink] = []
        replies: list[Any] = []

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.read(100)
            writer.write(b":1\r\n" + b"?not RESP\r\n")  # one good answer, then garbage
            await writer.drain()
            await reader.read(100)

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        link = await connect(f"redis://127.0.0.1:{port}", RedisLink(replies.append, lost.append))
        link.write(command(b"PUBLISH", b"c", b"x"))
        await _until(lambda: lost == [link])
        assert replies == [1] and not link.open
        server.close()

    with caplog.at_level(logging.WARNING):
        asyncio.run(body())


def test_a_reply_the_receiver_fails_on_is_logged_and_the_next_one_is_read(
    caplog: pytest.LogCaptureFixture,
) -> None:
    replies: list[Any] = []

    def on_reply(reply: Any) -> None:
        if reply == 1:
            raise RuntimeError("the receiver's own bug")
        replies.append(reply)

    link = RedisLink(on_reply, lambda _: None)
    with caplog.at_level(logging.ERROR, logger="cardverse.server.bus"):
        link.data_received(b":1\r\n:2\r\n*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$2\r\nhi\r\n")
    assert replies == [2, [b"message", b"c", b"hi"]]
    assert "handling an answer from Redis failed" in caplog.text


def test_a_truncated_message_waits_for_its_end() -> None:
    replies: list[Any] = []
    link = RedisLink(replies.append, lambda _: None)
    whole = b"*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$5\r\nhello\r\n"
    for cut in range(len(whole)):  # byte by byte, as TCP may cut it
        link.data_received(whole[cut : cut + 1])
    assert replies == [[b"message", b"c", b"hello"]]
