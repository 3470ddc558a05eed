"""A program at a web table (docs/uecda.md, section 10): the host opens the table to programs in
the lobby, a UECda program joins with the table's code (the command the lobby shows), and a
person in the browser plays a whole game next to it and three computer players."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import uecda_client as uc

from .conftest import TEST_SETTINGS, LiveServer
from .test_table import APP, check_page, contexts, play_to_the_end, wait_for

__all__ = ["contexts"]


@pytest.fixture(scope="module")
def program_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server with its UECda port on a free port."""
    from cardverse.application import create_app

    app = create_app(
        data_dir=tmp_path_factory.mktemp("programs"),
        **{**TEST_SETTINGS, "uecda_port": 0, "uecda_move_timeout": 20.0},
    )
    live = LiveServer(app)
    yield live
    live.stop()


def test_a_person_and_a_program_play_a_whole_game_at_one_table(
    program_server: LiveServer, contexts: Any, artifacts: Any
) -> None:
    page = contexts("desktop")
    page.goto(f"{program_server.url}/?lang=en")
    page.fill("#create-name", "Ada")
    page.click("#create-form button[type=submit]")
    page.wait_for_url(re.compile(r"/t/[A-Za-z0-9_-]+$"))
    wait_for(page, f"document.querySelector('{APP}').dataset.seated === 'true'")
    page.click("#options-details summary")
    # Not before the protocol can express the table: the control says why.
    wait_for(page, "document.querySelector('#option-programs').disabled")
    assert "five seats" in page.inner_text("#option-programs-help")
    page.check("input[name=preset][value=uecda]")
    page.select_option("#option-players", "5")
    wait_for(page, "document.querySelectorAll('#seat-list > *').length === 5")
    page.select_option("#option-rounds", "2")
    wait_for(page, "document.querySelector('#option-rounds').value === '2'")
    wait_for(page, "!document.querySelector('#option-programs').disabled")
    page.check("#option-programs")
    wait_for(page, "document.querySelector('#option-programs-help').textContent.includes('-n ')")
    help_text = page.inner_text("#option-programs-help")
    found = re.search(r"-p (\d+) -n (\S+)", help_text)
    assert found, help_text
    port, code = int(found.group(1)), found.group(2)
    assert port == program_server.app.state.programs.port
    program = uc.Client(f"{code}:Rando", uc.random_player, seed=11)
    program.start(port)
    assert program.seated.wait(30) and program.number == 1
    wait_for(page, "document.querySelector('#seat-list .tag-program') !== null")
    assert "Rando" in page.inner_text("#seat-list")
    page.screenshot(path=str(artifacts / "table-program-lobby.png"), full_page=True)
    check_page(page, "a program in the lobby")
    page.click("#fill-button")
    wait_for(page, "document.querySelectorAll('#seat-list .seat-bot').length === 3")
    page.click("#start-button")
    wait_for(page, f"document.querySelector('{APP}').dataset.phase === 'playing'")
    play_to_the_end([(page, False)])
    assert page.is_visible("#results")
    assert "Rando (program)" in page.inner_text("#results")
    assert program.done.wait(60)
    assert program.error is None and program.codes[-1] == 2 and program.codes.count(1) == 1
    assert program.turns > 0
    page.screenshot(path=str(artifacts / "table-program-results.png"), full_page=True)
    check_page(page, "a program at the table")
