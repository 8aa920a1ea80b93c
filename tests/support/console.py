"""The operator console in a real headless Chromium (Debian's, from apt): playwright, a browser, a signed-in page."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.programs import require_program

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@contextlib.contextmanager
def playwright() -> Iterator[Any]:
    """playwright's sync API; a missing package fails under CI and skips only on a laptop."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("playwright is not installed (pip install playwright)")
        pytest.skip("playwright not installed")
    with sync_playwright() as pw:
        yield pw


def launch(pw: Any) -> Any:
    # Debian's Chromium, not a browser build that `playwright install` would download.
    return pw.chromium.launch(executable_path=require_program("chromium"), args=CHROMIUM_ARGS)


@contextlib.contextmanager
def signed_in(pw: Any, url: str, token: str) -> Iterator[Any]:
    """A page on the console at url with the admin token saved, closed with its browser."""
    browser = launch(pw)
    try:
        page = browser.new_page()
        page.goto(url + "/")
        page.fill("#token", token)
        page.click("#save-token")
        yield page
    finally:
        browser.close()
