"""Rules R15–R19: revolutions, counter-revolutions, and the normal order of each new round."""

from __future__ import annotations

from engine_testkit import do, expect, give, hand, legal, make_round, play

from cardverse.engine import PASS, Game, Phase, Rules

FOUR = {rank: [rank + s for s in "CDHS"] for rank in ("2", "3", "4", "5", "6", "7", "9")}

# -- R15: every set of four reverses the order ------------------------------------------------


def test_R15_set_of_four_starts_a_revolution_at_once() -> None:
    r = make_round([[*FOUR["7"], "8C"], ["5C", "9C"], ["4C"]], 0, revolution=True)
    do(r, 0, *FOUR["7"])
    assert r.revolution is True
    assert r.turn == 1
    do(r, 1)
    do(r, 2)
    assert r.turn == 0 and r.last_move is None
    do(r, 0, "8C")  # the revolution lasts past the trick: a 5 beats an 8, a 9 does not
    assert r.revolution is True
    assert legal(r) == expect("5C", "pass")


def test_R15_four_made_with_a_joker_starts_a_revolution() -> None:
    r = make_round([["7C", "7D", "7H", "RJ", "KC"], ["5C", "9C"], ["4C"]], 0, revolution=True,
                   jokers=1)  # fmt: skip
    do(r, 0, "7C", "7D", "7H", "RJ")
    assert r.revolution is True
    r = make_round([["7C", "7D", "RJ", "BJ", "KC"], ["5C", "9C"], ["4C"]], 0, revolution=True,
                   jokers=2)  # fmt: skip
    do(r, 0, "7C", "7D", "RJ", "BJ")
    assert r.revolution is True


def test_R15_next_four_is_a_counter_revolution_and_so_on() -> None:
    r = make_round(
        [[*FOUR["7"], "KC"], [*FOUR["5"], "QC"], [*FOUR["9"], "JC"], ["4D"]], 0, revolution=True
    )
    do(r, 0, *FOUR["7"])
    assert r.revolution is True
    # Reversed: the 5s beat the 7s, the 9s do not.
    assert legal(r) == expect(" ".join(FOUR["5"]), "pass")
    do(r, 1, *FOUR["5"])
    assert r.revolution is False  # counter-revolution: normal order again
    assert legal(r) == expect(" ".join(FOUR["9"]), "pass")
    do(r, 2, *FOUR["9"])
    assert r.revolution is True


def test_R15_no_revolution_without_the_option() -> None:
    r = make_round([[*FOUR["7"], "8C"], ["5C", "9C"], ["4C"]], 0, revolution=False)
    do(r, 0, *FOUR["7"])
    assert r.revolution is False
    do(r, 1)
    do(r, 2)
    do(r, 0, "8C")
    assert legal(r) == expect("9C", "pass")  # normal order: a 9 beats an 8, a 5 does not


# -- R16: the four itself is judged by the order before it ---------------------------------------


def test_R16_four_is_judged_by_order_before_it() -> None:
    r = make_round([[*FOUR["5"], "KC"], [*FOUR["4"], *FOUR["6"], "QC"], ["3D"]], 0, revolution=True)
    do(r, 0, *FOUR["5"])  # led in normal order: now reversed
    assert r.revolution is True
    # The answer to a four is judged by the order in force before it is played (now reversed):
    # only the 4s beat the 5s.
    assert legal(r) == expect(" ".join(FOUR["4"]), "pass")
    refusal = r.check(1, play(*FOUR["6"]))
    assert refusal is not None and refusal.rule == "R10"
    do(r, 1, *FOUR["4"])
    assert r.revolution is False  # and the next play is judged in the normal order again


def test_R16_four_on_a_four_judged_in_normal_order_when_none_in_force() -> None:
    r = make_round(
        [[*FOUR["5"], "KC"], ["2C", "QC"], [*FOUR["4"], *FOUR["6"], "JD"]], 0, revolution=True,
        in_revolution=True,
    )  # fmt: skip
    # During a revolution the 5s are led; then the order is normal and the 6s beat them.
    do(r, 0, *FOUR["5"])
    assert r.revolution is False
    do(r, 1)
    assert legal(r) == expect(" ".join(FOUR["6"]), "pass")
    do(r, 2, *FOUR["6"])
    assert r.revolution is True
    assert r.turn == 0  # seat 1 passed; seat 0 may still answer


# -- R17: clearing and revolution together -------------------------------------------------------


def test_R17_four_twos_clear_then_the_order_is_reversed() -> None:
    r = make_round([[*FOUR["2"], "5C", "KC"], ["4C", "6C"], ["9D"]], 0, revolution=True)
    do(r, 0, *FOUR["2"])
    assert r.last_move is None and r.turn == 0  # cleared: seat 0 leads again
    assert r.revolution is True
    do(r, 0, "5C")
    assert legal(r) == expect("4C", "pass")  # reversed: 4 beats 5, 6 does not


def test_R17_four_threes_during_a_revolution_clear_and_restore_the_order() -> None:
    r = make_round(
        [[*FOUR["3"], "5C", "KC"], ["4C", "6C"], ["9D"]], 0, revolution=True, in_revolution=True
    )
    do(r, 0, *FOUR["3"])
    assert r.last_move is None and r.turn == 0
    assert r.revolution is False
    do(r, 0, "5C")
    assert legal(r) == expect("6C", "pass")


def test_R17_four_threes_without_revolution_do_not_clear() -> None:
    r = make_round([[*FOUR["3"], "5C"], ["4C", "6C"], ["9D"]], 0, revolution=True)
    do(r, 0, *FOUR["3"])
    assert r.last_move is not None and r.turn == 1
    assert r.revolution is True  # and nothing beats a four of 3s in the reversed order


def test_R17_four_twos_during_a_revolution_do_not_clear() -> None:
    r = make_round([[*FOUR["2"], "5C"], ["4C", "6C"], ["9D"]], 0, revolution=True,
                   in_revolution=True)  # fmt: skip
    do(r, 0, *FOUR["2"])
    assert r.last_move is not None and r.turn == 1
    assert r.revolution is False


def test_R17_four_eights_with_eight_stop_clear_and_reverse() -> None:
    r = make_round(
        [["8C", "8D", "8H", "8S", "5C", "KC"], ["4C", "6C"], ["9D"]],
        0,
        revolution=True,
        eight_stop=True,
    )
    do(r, 0, "8C", "8D", "8H", "8S")
    assert r.last_move is None and r.turn == 0 and r.revolution is True


# -- R18: straights never start a revolution -----------------------------------------------------


def test_R18_straights_never_start_a_revolution() -> None:
    for length in (4, 5, 6):
        ranks = ["5", "6", "7", "8", "9", "10"][:length]
        r = make_round([[*(x + "S" for x in ranks), "KC"], ["4C"], ["3D"]], 0, revolution=True,
                       straights=True)  # fmt: skip
        do(r, 0, *(x + "S" for x in ranks))
        assert r.revolution is False, length
    r = make_round([["5S", "6S", "RJ", "BJ", "KC"], ["4C"], ["3D"]], 0, revolution=True,
                   straights=True, jokers=2, in_revolution=True)  # fmt: skip
    do(r, 0, "5S", "6S", "RJ", "BJ", RJ="7", BJ="8")
    assert r.revolution is True  # unchanged


# -- R19: each round starts in the normal order; the exchange uses it too ------------------------


def test_R19_every_round_starts_in_the_normal_order() -> None:
    rules = Rules.make("cardverse", players=3, rounds=2, exchange=False)
    game = Game(rules, hands=[hand(*FOUR["5"], "9C"), hand("4C", "KD"), hand("6C", "7C")])
    game.apply(play(*FOUR["5"]))
    assert game.revolution is True
    game.apply(PASS)
    game.apply(PASS)
    game.apply(play("9C"))  # seat 0 goes out
    game.apply(play("4C"))  # a 4 beats a 9 in the reversed order
    game.apply(PASS)  # seat 2 holds 6C 7C: no card lower than a 4
    game.apply(play("KD"))  # seat 1 leads and goes out: seat 2 is last
    assert game.phase is Phase.ROUND_OVER
    assert game.places == [[0, 1, 2]]
    game.start_next_round([hand("3D", "4D"), hand("6D", "7D"), hand("8S", "KS")])
    assert game.phase is Phase.PLAY
    assert game.revolution is False
    assert game.turn == 2  # the Scum leads (R24)
    game.apply(play("8S"))
    assert game.round is not None
    assert legal(game.round) == expect("pass")  # seat 0 holds 3D 4D: lower in normal order


def test_R19_exchange_uses_the_normal_order_after_a_revolution() -> None:
    rules = Rules.make("cardverse", players=3, rounds=2)
    game = Game(rules, hands=[hand(*FOUR["5"], "9C"), hand("4C", "KD"), hand("6C", "7C")])
    game.apply(play(*FOUR["5"]))
    game.apply(PASS)
    game.apply(PASS)
    game.apply(play("9C"))
    game.apply(play("4C"))
    game.apply(PASS)
    game.apply(play("KD"))
    assert game.places == [[0, 1, 2]] and game.phase is Phase.ROUND_OVER
    # The Scum (seat 2) holds 3S: the highest card of a revolution, the lowest of the normal order.
    game.start_next_round([hand("4D", "5D"), hand("6D", "7D"), hand("3S", "8S", "KS")])
    assert game.phase is Phase.EXCHANGE
    assert game.exchange_log == [(2, 0, hand("8S", "KS"))]
    assert game.hands[2] == hand("3S")
    game.apply(give("4D", "5D"))
    assert game.revolution is False
    assert game.hands[2] == hand("3S", "4D", "5D")
