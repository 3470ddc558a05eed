"""The ``uecda`` preset (rules.md section 11) at a web table: chosen in the lobby, five seats, a
whole game played through the page with four computer players, and its rules sheet."""

from __future__ import annotations

from typing import Any

from .test_table import APP, check_page, contexts, create_table, play_to_the_end, wait_for

__all__ = ["contexts"]


def test_R41_R48_a_uecda_game_with_five_seats_plays_to_the_end_on_a_phone(
    server_url: str, contexts: Any, artifacts: Any
) -> None:
    page = contexts("phone", reduced_motion="reduce")
    create_table(page, server_url, "en", "Ada")
    page.click("#options-details summary")
    page.check("input[name=preset][value=uecda]")
    # The preset's values show in the form: its own options among them (R41-R46).
    wait_for(page, "document.querySelector('#option-straight_cover').value === 'all_higher'")
    assert page.input_value("#option-suit_lock") == "with_jokers"
    assert page.input_value("#option-spade_three") == "over_lock"
    assert page.input_value("#option-straight_revolution") == "5"
    # The seats stay the host's to set (a UECda match is five players).
    page.select_option("#option-players", "5")
    wait_for(page, "document.querySelectorAll('#seat-list > *').length === 5")
    page.select_option("#option-rounds", "1")
    wait_for(page, "document.querySelector('#option-rounds').value === '1'")
    page.click("#fill-button")
    wait_for(page, "document.querySelectorAll('#seat-list .seat-bot').length === 4")
    page.click("#start-button")
    wait_for(page, f"document.querySelector('{APP}').dataset.phase === 'playing'")
    wait_for(page, "document.querySelectorAll('#hand .hand-card').length > 0")
    assert page.locator("#hand .hand-card").count() in (10, 11)  # 53 cards dealt to five (R23)
    play_to_the_end([(page, False)])
    assert page.is_visible("#results")
    assert page.locator("#final-body tr").count() == 5
    page.screenshot(path=str(artifacts / "table-uecda-results-phone.png"), full_page=True)
    check_page(page, "uecda results phone")


def test_the_uecda_rules_sheet_says_each_of_its_rules(server_url: str, contexts: Any) -> None:
    page = contexts("desktop")
    page.goto(f"{server_url}/rules/sheet?preset=uecda&lang=en")
    text = page.inner_text("main")
    for words in (
        "all its cards are higher than all the cards it covers",  # R41
        "cards or more starts a revolution too",  # R42
        "9-9-9-9-joker",  # R43
        "1 to 4 cards of one rank, or four and a joker",  # R43, the lead
        "whatever lock",  # R45 (the spade three over a lock)
        "Every round is led like the first",  # R46
    ):
        assert words in text, words
