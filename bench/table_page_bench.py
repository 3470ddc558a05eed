"""The table page's weight and its time to the first card (``make bench``; not a test).

Starts ``cardverse serve`` as its own process on 127.0.0.1 (a free port, a fresh data
directory), makes a table of one person and three computer players, starts a game, and then
opens the table's link ``--runs`` times, each in a fresh browser context (nothing cached), as the
seated person would (the seat token in the browser's storage), in Debian's Chromium through
Playwright. It measures:

- the page weight: bytes of every response of the first load, by kind (the HTML document with
  the card templates and translations, the ES modules, the stylesheets, the SVG icon), as sent
  (the server does not compress) and gzip-compressed;
- the time from the start of the navigation to the first card of the hand being visible
  (``performance.now()`` in the page when a MutationObserver first sees it), median, minimum and
  maximum.

The figures are printed and written to ``bench/results/table-page.json``.

    .venv/bin/python -m bench.table_page_bench --runs 9
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

from cardverse.web.headless import CHROMIUM, launch

SIZES = {"360x640": (360, 640), "1280x800": (1280, 800)}
FIRST_CARD = """new MutationObserver((_, observer) => {
  const card = document.querySelector('#hand .hand-card');
  if (card && card.checkVisibility()) {
    window.__firstCard = performance.now();
    observer.disconnect();
  }
}).observe(document, {subtree: true, childList: true, attributes: true});"""


def start_server(data_dir: str) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "cardverse", "serve", "--port", "0", "--data-dir", data_dir]
    command += ["--bot-delay", "0.8", "--log-level", "warning"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    found = re.search(r"http://[\d.:]+", process.stdout.readline())
    if not found:
        process.terminate()
        raise RuntimeError("the server did not say where it listens")
    return process, found.group()


def measure(base: str, runs: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    created = httpx.post(
        f"{base}/api/tables", json={"name": "Ada", "rules": {"preset": "standard", "players": 4}}
    ).json()
    table_id, token = created["table_id"], created["token"]
    seat = (
        f"localStorage.setItem('cardverse.seat.{table_id}',"
        f" JSON.stringify({{seat: 0, token: '{token}'}}));"
    )
    out: dict[str, Any] = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        setup = browser.new_context()
        setup.add_init_script(seat)
        page = setup.new_page()
        page.goto(f"{base}/t/{table_id}")
        page.click("#fill-button")
        page.wait_for_function(
            "() => document.querySelectorAll('#seat-list .seat-bot').length === 3"
        )
        page.click("#start-button")
        page.wait_for_selector("#hand .hand-card")
        setup.close()
        for size, (width, height) in SIZES.items():
            times: list[float] = []
            weight: dict[str, list[int]] = {}
            for _ in range(runs):
                context = browser.new_context(viewport={"width": width, "height": height})
                context.add_init_script(seat)
                context.add_init_script(FIRST_CARD)
                fresh = context.new_page()
                bodies: dict[str, list[int]] = {}

                def on_response(response: Any, bodies: dict[str, list[int]] = bodies) -> None:
                    try:
                        body = response.body()
                    except Exception:
                        return
                    sizes = bodies.setdefault(response.request.resource_type, [0, 0])
                    sizes[0] += len(body)
                    sizes[1] += len(gzip.compress(body))

                fresh.on("response", on_response)
                fresh.goto(f"{base}/t/{table_id}", wait_until="load")
                fresh.wait_for_function("() => window.__firstCard !== undefined")
                times.append(float(fresh.evaluate("() => window.__firstCard")))
                weight = bodies
                context.close()
            out[size] = {
                "first_card_ms": {
                    "median": round(statistics.median(times)),
                    "min": round(min(times)),
                    "max": round(max(times)),
                },
                "bytes": {kind: sizes[0] for kind, sizes in weight.items()},
                "bytes_gzip": {kind: sizes[1] for kind, sizes in weight.items()},
                "total_bytes": sum(sizes[0] for sizes in weight.values()),
                "total_bytes_gzip": sum(sizes[1] for sizes in weight.values()),
            }
        browser.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=9, help="page loads per size")
    parser.add_argument("--out", default="bench/results/table-page.json")
    args = parser.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        print(f"{CHROMIUM} is missing: run scripts/ensure-chromium.sh", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as data_dir:
        process, base = start_server(data_dir)
        try:
            result = measure(base, args.runs)
        finally:
            process.terminate()
            process.wait(timeout=10)
    result["load_average"] = os.getloadavg()
    text = json.dumps(result, indent=1)
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
