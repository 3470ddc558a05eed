"""The pages work under their own Content-Security-Policy: no inline script, no eval, no
violation reported while the home page and a table (lobby, a game with computer players) run."""

from __future__ import annotations

from typing import Any

import httpx

from .conftest import WAIT

# Runs before any page script (injected by the browser's debugging protocol, not by the page).
COLLECT = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(event.violatedDirective + " " + event.blockedURI);
});
"""


def test_pages_run_under_the_content_security_policy(browser: Any, server_url: str) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.add_init_script(COLLECT)
        answer = page.goto(server_url + "/")
        assert (
            answer is not None and "script-src 'self'" in answer.headers["content-security-policy"]
        )
        page.wait_for_selector("#create-form")
        created = httpx.post(
            f"{server_url}/api/tables", json={"name": "Csp"}, timeout=WAIT / 1000
        ).json()
        page.goto(f"{server_url}/t/{created['table_id']}")
        # The page read its configuration and translations from data attributes and connected.
        page.wait_for_selector('#table-app[data-connection="open"]')
        page.wait_for_selector("#seat-list li")
        assert page.evaluate("window.__violations") == []
        assert errors == []
    finally:
        context.close()
