"""The table page under the house rules (R31–R39): choosing the cards of a seven pass or a ten
discard, the lock and the jack back shown, forbidden finishes and downfalls told."""

from __future__ import annotations

from typing import Any

from .table_support import given_messages, given_view, inject
from .test_table import APP, contexts, data, wait_for

__all__ = ["contexts"]

RULES = {"preset": "daifugo", "players": 3}


def _open(page: Any, server_url: str) -> tuple[str, dict[str, Any]]:
    created = page.request.post(f"{server_url}/api/tables", data={"name": "Ada", "rules": RULES})
    table_id = created.json()["table_id"]
    page.goto(f"{server_url}/t/{table_id}?lang=en")
    wait_for(page, f"document.querySelector('{APP}').dataset.phase === 'lobby'")
    rules = page.request.get(f"{server_url}/api/tables/{table_id}").json()["rules"]
    return table_id, rules


def _receive(
    page: Any,
    table_id: str,
    rules: dict[str, Any],
    view: dict[str, Any],
    events: list[Any],
    v: int = 1,
) -> None:
    for message in given_messages(table_id, rules, v, view, events):
        inject(page, message)


def test_R36_a_seven_pass_is_chosen_and_given(server_url: str, contexts: Any) -> None:
    page = contexts("desktop")
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload))))
    table_id, rules = _open(page, server_url)
    owed = {"seat": 0, "kind": "give", "count": 1, "receiver": 1}
    moves = [{"action": "give", "cards": [code]} for code in ("3C", "9D", "KH")]
    view = given_view(rules, owed=owed, legal_moves=moves)
    events = [
        {"event": "played", "seat": 0, "cards": ["7C"]},
        {"event": "owed", "seat": 0, "kind": "give", "count": 1, "to": 1},
    ]
    _receive(page, table_id, rules, view, events)
    wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'")
    assert page.inner_text("#play-button") == "Give"
    assert page.is_hidden("#pass-button")
    assert page.inner_text("#game-status") == "Your turn: give 1 card to Bo."
    assert "Give 1 card to Bo." in page.inner_text("#log")
    page.click('#hand .hand-card[data-card="3C"]')
    assert data(page, "selection") == "ready"
    assert "Give 3" in page.inner_text("#note")
    page.click("#play-button")
    wait_for(page, "document.querySelectorAll('#hand .hand-card.is-selected').length === 0")
    gives = [f.replace(" ", "") for f in sent if '"type":"give"' in f.replace(" ", "")]
    assert gives and '"cards":["3C"]' in gives[-1]
    assert not page.js_errors  # type: ignore[attr-defined]


def test_R37_a_ten_discard_is_chosen_and_discarded(server_url: str, contexts: Any) -> None:
    page = contexts("phone")
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload))))
    table_id, rules = _open(page, server_url)
    owed = {"seat": 0, "kind": "discard", "count": 2, "receiver": None}
    moves = [
        {"action": "discard", "cards": pair} for pair in (["3C", "9D"], ["3C", "KH"], ["9D", "KH"])
    ]
    trick = [{"seat": 0, "action": "play", "cards": ["10C", "10D"]}]
    view = given_view(rules, owed=owed, legal_moves=moves, trick=trick)
    _receive(page, table_id, rules, view, [])
    wait_for(page, f"document.querySelector('{APP}').dataset.myTurn === 'true'")
    assert page.inner_text("#play-button") == "Discard"
    page.click('#hand .hand-card[data-card="3C"]')
    assert data(page, "selection") == "partial"
    page.click('#hand .hand-card[data-card="KH"]')
    assert data(page, "selection") == "ready"
    page.click("#play-button")
    wait_for(page, "document.querySelectorAll('#hand .hand-card.is-selected').length === 0")
    frames = [f.replace(" ", "") for f in sent if '"type":"discard"' in f.replace(" ", "")]
    assert frames and '"cards":["3C","KH"]' in frames[-1]


def test_R39_lock_and_jack_back_are_shown_and_finishes_told(server_url: str, contexts: Any) -> None:
    page = contexts("desktop")
    table_id, rules = _open(page, server_url)
    trick = [
        {"seat": 1, "action": "play", "cards": ["5H"]},
        {"seat": 2, "action": "play", "cards": ["JH"]},
    ]
    view = given_view(rules, trick=trick, turn=0, jack_back=True, reversed_order=True, lock=["H"],
        legal_moves=[
        {"action": "play", "cards": ["3C"]}, {"action": "pass"}])  # fmt: skip
    events = [
        {"event": "played", "seat": 1, "cards": ["5H"]},
        {"event": "played", "seat": 2, "cards": ["JH"]},
        {"event": "lock", "suits": ["H"]},
        {"event": "jack_back", "on": True},
        {"event": "went_out", "seat": 1, "place": 2, "how": "forbidden"},
        {"event": "went_out", "seat": 2, "place": 1, "how": "downfall"},
    ]
    _receive(page, table_id, rules, view, events)
    wait_for(page, "!document.querySelector('#jack-back').hidden")
    assert page.is_visible("#lock") and "Hearts" in page.inner_text("#lock")
    log = page.inner_text("#log")
    assert "Suit lock: until the trick ends, only Hearts." in log
    assert "Jack back! The order is reversed until the trick ends." in log
    assert "Forbidden finish: Bo goes out on a strong card and takes place 3." in log
    assert "Downfall: Cy loses the presidency and takes place 2." in log
    assert not page.js_errors  # type: ignore[attr-defined]
