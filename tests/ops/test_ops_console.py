"""The operator console in headless Debian Chromium (Playwright): live preview, token, say → heard on RTMP."""

from __future__ import annotations

import hashlib
import time

import pytest
from ops_support import ADMIN_TOKEN, DaemonThread, small_room, wait_for, write_config

from tests.support.console import launch, playwright
from tests.support.media import probe

LINE = "Hello from the operator console, welcome everyone."
HOSTILE = 'Look <img src=x onerror="window.__pwned=1"> here'



@pytest.fixture
def sync_playwright():
    with playwright() as pw:
        yield pw


def _frames(page) -> int:
    return int(page.eval_on_selector("#preview", "img => Number(img.dataset.frames || 0)"))


def _picture(page) -> str:
    """A digest of the pixels the preview shows now."""
    data = page.eval_on_selector(
        "#preview",
        """img => { const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
                   const g = c.getContext('2d'); g.drawImage(img, 0, 0);
                   return Array.from(g.getImageData(0, 0, c.width, c.height).data.filter((_, i) => i % 97 === 0)).join(','); }""",
    )
    return hashlib.sha256(data.encode()).hexdigest()


@pytest.mark.slow
def test_console_preview_token_controls_and_say_heard_on_rtmp(sync_playwright, ffmpeg_ingest, tmp_path):
    ingest = ffmpeg_ingest()
    cfg = write_config(tmp_path / "config.yaml", rooms=[small_room("r1", [{"type": "rtmp", "url": ingest.url}])],
                       workers="inline")  # the test listens to the room's stage events in process
    d = DaemonThread(cfg).start()
    events: list[tuple[str, str, int]] = []
    d.loop.call_soon_threadsafe(
        d.room("r1").port.subscribe, lambda ev: events.append((ev.kind, ev.line.text, ev.frame))
    )
    browser = launch(sync_playwright)
    try:
        assert ingest.wait_publisher(20)
        page = browser.new_page()
        snapshot_requests: list[str] = []
        page.on("request", lambda r: snapshot_requests.append(r.url) if r.url.endswith("/snapshot.jpg") else None)
        page.goto(d.url + "/")
        assert page.inner_text("#message") == "Enter the admin token."

        # A wrong token is refused and said so; nothing is shown.
        page.fill("#token", "wrong-token")
        page.click("#save-token")
        page.wait_for_function(
            "() => document.getElementById('message').textContent.includes('refused')", timeout=5000)
        assert not snapshot_requests

        # The right token: the preview runs at ≥ 2 frames per second and the picture changes.
        page.fill("#token", ADMIN_TOKEN)
        page.press("#token", "Enter")
        page.wait_for_function(
            "() => Number(document.getElementById('preview').dataset.frames || 0) >= 2", timeout=10000)
        pictures = set()
        before = _frames(page)
        t = time.monotonic()
        while time.monotonic() - t < 2.0:
            pictures.add(_picture(page))
            time.sleep(0.2)
        shown = _frames(page) - before
        assert shown >= 4, f"{shown} preview frames in 2 s"
        assert len(pictures) >= 2, "the preview picture changes"
        assert page.eval_on_selector("#preview", "img => img.naturalWidth") == 320
        assert page.inner_text("#on-air") == "on air"
        assert page.input_value("#token") == "", "the token is not left in the field"

        # The token lives in sessionStorage: a reload keeps working without asking again.
        page.reload()
        page.wait_for_function(
            "() => document.getElementById('room').value === 'r1'", timeout=5000)
        assert page.inner_text("#message") == ""

        # Pause and resume show in the page.
        page.click("#pause")
        page.wait_for_selector("#paused", state="visible", timeout=5000)
        assert d.room("r1").status()["paused"] is True
        page.click("#resume")
        page.wait_for_selector("#paused", state="hidden", timeout=5000)

        # Say: typed in the page, spoken by the room, heard in the stream the RTMP server received.
        page.fill("#say-text", LINE)
        page.click("#say-btn")
        page.wait_for_function(
            "() => document.getElementById('message').textContent === 'queued'", timeout=5000)
        assert page.input_value("#say-text") == ""
        page.wait_for_function(
            "() => document.getElementById('current').textContent.length > 0", timeout=20000
        )
        assert wait_for(lambda: any(k == "end" and t == LINE for k, t, _ in events), 30), events

        # What the daemon reports is shown as text, never as markup.
        page.fill("#say-text", HOSTILE)
        page.click("#say-btn")
        page.wait_for_function("() => document.getElementById('current').textContent.includes('<img')", timeout=20000)
        assert page.eval_on_selector_all("#current *, #queue *", "els => els.filter(e => e.tagName === 'IMG').length") == 0
        assert page.evaluate("() => window.__pwned === undefined")
    finally:
        browser.close()
        d.stop()
    ingest.finish()
    starts = [f for k, t, f in events if k == "start" and t == LINE]
    ends = [f for k, t, f in events if k == "end" and t == LINE]
    assert starts and ends
    p = probe(ingest.out)
    base = d.room("r1").sinks[0].base_time
    t0, t1 = starts[0] / 25 - base, (ends[-1] + 1) / 25 - base
    assert t1 - t0 > 1.0, "a sentence of speech"
    assert p.rms(t0, t1) > 0.02, "the line is audible in the stream"
    assert p.rms(max(0.1, t0 - 1.5), t0 - 0.1) < 1e-3, "idle silence before it"
