"""The browser tests' screenshots take a second capture when Chromium's compositor refuses the
first ("Unable to capture screenshot", seen once under load in CI), and only then."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Error

from .conftest import SCREENSHOT_TRIES, _patient_screenshots


class FakePage:
    """A page whose compositor refuses the first `refusals` captures with `message`."""

    def __init__(self, refusals: int, message: str = "Unable to capture screenshot") -> None:
        self.refusals = refusals
        self.message = message
        self.captures = 0
        self.frames_waited = 0

    def screenshot(self, **options: Any) -> bytes:
        self.captures += 1
        if self.captures <= self.refusals:
            raise Error(f"Page.screenshot: Protocol error: {self.message}")
        return b"png"

    def evaluate(self, script: str) -> None:
        self.frames_waited += 1


class PatientFakePage(FakePage):
    pass


_patient_screenshots(PatientFakePage)


def test_a_refused_capture_is_taken_again_a_frame_later() -> None:
    page = PatientFakePage(refusals=1)
    assert page.screenshot(full_page=True) == b"png"
    assert (page.captures, page.frames_waited) == (2, 1)


def test_a_capture_refused_every_time_still_fails() -> None:
    page = PatientFakePage(refusals=SCREENSHOT_TRIES)
    with pytest.raises(Error, match="Unable to capture"):
        page.screenshot()
    assert page.captures == SCREENSHOT_TRIES


def test_any_other_error_fails_at_once() -> None:
    page = PatientFakePage(refusals=1, message="Target closed")
    with pytest.raises(Error, match="Target closed"):
        page.screenshot()
    assert page.captures == 1
