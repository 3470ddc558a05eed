"""Debian's Chromium as the browser tests (tests/web) and the table page's benchmark
(bench/table_page_bench.py) launch it through Playwright: its path and its flags, kept in one
place. Never a browser that Playwright downloads (scripts/ensure-chromium.sh installs this one).
"""

from __future__ import annotations

from typing import Any

CHROMIUM = "/usr/bin/chromium"
# headless, no sandbox (containers), no GPU, and none of the browser's own traffic (QUIC,
# background requests, component updates, sync): the only network is the page's
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def launch(playwright: Any) -> Any:
    """Start Debian's Chromium with those flags (``playwright``: a started Playwright)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
