"""Fixtures for the web client's tests: a real server on a free port, and Debian's Chromium."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cardverse.web.headless import CHROMIUM, launch

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"

# ms: how long any browser step may take before it counts as failed. Every wait of the browser
# tests is for a state the page reaches; this only bounds it, generously, so that the tests
# pass on a loaded 2-core machine (a second `make test` beside the first).
WAIT = 30_000
# ms: the bound of a wait that spans many moves of other players (a whole round, a game)
LONG_WAIT = 120_000


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# Computer players act at once, no turn timer and a short pause between rounds, so that the
# browser tests play whole games quickly; hard players search briefly and in threads.
TEST_SETTINGS = {
    "bot_delay": 0.0,
    "turn_timer": None,
    "round_pause": 0.4,
    "hard_time_limit": 0.05,
    "bot_processes": 0,
    "create_burst": 1000,  # the browser tests create many tables from 127.0.0.1
}


def make_app(data_dir: Path):  # type: ignore[no-untyped-def]
    """The product's app: the server's API and WebSocket with the web pages."""
    from cardverse.application import create_app

    return create_app(data_dir=data_dir, **TEST_SETTINGS)


class LiveServer:
    """A real uvicorn server on 127.0.0.1 with a free port, in a thread of this process."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        from cardverse.server.connections import ConnectionLimits, uvicorn_config

        self.app = app
        port = _free_port()
        # The product's server set-up: uvicorn for HTTP, the table WebSockets handed to picows
        # (ConnectionLimits' pings are the heartbeat's).
        config = uvicorn_config(
            app, ConnectionLimits(), host="127.0.0.1", port=port, log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="web-test-server", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + WAIT / 1000 * 2  # a loaded machine starts it slowly
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{port}"

    @property
    def service(self) -> Any:
        return self.app.state.service

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The shared test server (see TEST_SETTINGS)."""
    live = LiveServer(make_app(tmp_path_factory.mktemp("data")))
    yield live.url
    live.stop()


@pytest.fixture(scope="session")
def quick_grace_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose computer player stands in for a disconnected person after 0.3 s."""
    from cardverse.application import create_app

    app = create_app(data_dir=tmp_path_factory.mktemp("grace"), **{**TEST_SETTINGS, "grace": 0.3})
    live = LiveServer(app)
    yield live
    live.stop()


class PatientBrowser:
    """The browser whose every context and page waits up to WAIT ms by default (actions,
    `wait_for_*`, navigations), whoever opens them; everything else is Playwright's Browser."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def new_context(self, **options: Any) -> Any:
        context = self._browser.new_context(**options)
        context.set_default_timeout(WAIT)
        context.set_default_navigation_timeout(WAIT)
        return context

    def new_page(self, **options: Any) -> Any:
        page = self._browser.new_page(**options)
        page.set_default_timeout(WAIT)
        page.set_default_navigation_timeout(WAIT)
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


# Chromium's compositor now and then answers a screenshot with "Unable to capture screenshot"
# when the machine is loaded (a known headless quirk, chrome-remote-interface#128); the page is
# fine and a second capture, a frame later, succeeds. How many captures a screenshot may take:
SCREENSHOT_TRIES = 3


def _patient_screenshots(page_class: Any) -> Any:
    """Make every page's screenshot try again, a frame later, when the compositor refuses it
    (and only then); returns the original method, to put back."""
    from playwright.sync_api import Error

    original = page_class.screenshot

    def screenshot(self: Any, **options: Any) -> bytes:
        for attempt in range(1, SCREENSHOT_TRIES + 1):
            try:
                return original(self, **options)  # type: ignore[no-any-return]
            except Error as error:
                if "Unable to capture screenshot" not in str(error) or attempt == SCREENSHOT_TRIES:
                    raise
                self.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
        raise AssertionError("unreachable")

    page_class.screenshot = screenshot
    return original


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Debian's Chromium driven by Playwright (never a browser downloaded by Playwright), with
    the tests' default timeouts (see PatientBrowser)."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh (make test does)")
    from playwright.sync_api import Page, expect, sync_playwright

    expect.set_options(timeout=WAIT)  # the assertions that retry until the page agrees
    original = _patient_screenshots(Page)
    try:
        with sync_playwright() as playwright:
            instance = launch(playwright)
            yield PatientBrowser(instance)
            instance.close()
    finally:
        Page.screenshot = original  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
