"""The console's Talk track panel on a daemon whose room runs in its own worker process: after the room has said
talk lines the room status carries the track's figures (distinct sentences in the last hour, repeats inside the
window and so far, paraphrases by state and refused by the guard's reason, the material warning worded as `check`
prints it), and headless Chromium shows them."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from ops_support import ADMIN_TOKEN, ROOT, DaemonThread, request, small_room, wait_for, write_config

from tests.support.console import playwright, signed_in

THIN = "segments:\n  - name: pitch\n    lines: [这款保温杯内胆是316不锈钢。, 有问题打在公屏上。]\n"
FIGURE, ABSOLUTE = "这款杯子今天只要99元。", "它是销量第一的保温杯。"  # what the loopback LLM offers: both refused


class _LoopThread:
    """An event loop in a thread for the loopback LLM (the daemon's loop is the DaemonThread's)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="llm-loop", daemon=True)
        self.thread.start()

    def call(self, coro, timeout: float = 30.0):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def _status(d: DaemonThread) -> dict:
    status, _, raw = request("GET", d.url + "/api/rooms/r1", token=ADMIN_TOKEN)
    assert status == 200
    return json.loads(raw)


def test_the_talk_panel_shows_the_rooms_variety_repeats_paraphrases_and_thin_material(tmp_path: Path) -> None:
    from tests.brain.llm_fakes import FakeOpenAI

    talk = tmp_path / "talk.yaml"
    talk.write_text(THIN, encoding="utf-8")
    side = _LoopThread()
    llm = side.call(FakeOpenAI(script=lambda req: [f"{FIGURE}\n", f"{ABSOLUTE}\n"]).start())
    try:
        _run(tmp_path, talk, llm.base_url)
    finally:
        side.call(llm.stop())
        side.stop()


def _run(tmp_path: Path, talk: Path, llm_url: str) -> None:
    cfg = write_config(tmp_path / "config.yaml", rooms=[small_room(
        "r1", [], brain={"llm": {"backend": "openai", "base_url": llm_url, "model": "fake"}},
        director={"talk": {"file": str(talk), "paraphrase": {"enabled": True, "per_line": 1, "points": 0}}})])
    # `check` words the material warning the panel must show.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    checked = subprocess.run([sys.executable, "-m", "broadcaster.cli", "check", "-c", str(cfg)], capture_output=True,
                             text=True, env=env, timeout=60, check=False)
    assert checked.returncode == 0, checked.stderr
    warned = [line.removeprefix("warning: room r1: ") for line in checked.stderr.splitlines()
              if line.startswith("warning: room r1: ")]
    assert len(warned) == 3 and "1 way(s) to say it" in warned[0] and "a 10-minute window needs" in warned[-1]

    d = DaemonThread(cfg).start()
    try:
        assert d.room("r1").worker_info()["mode"] == "process"

        def refused() -> dict | None:
            t = _status(d)["talk"]
            p = (t or {}).get("paraphrases") or {}
            return t if t["lines"] >= 3 and {"figure", "absolute"} <= set(p.get("rejected", {})) else None

        t = wait_for(refused, 90, interval=0.5)
        assert t, _status(d)["talk"]
        assert t["window_s"] == 600.0 and t["distinct_sentences_hour"] == 2  # two lines, no other way to say them
        assert t["repeats_in_window"] >= 1 and t["repeats_total"] >= t["repeats_in_window"]
        assert t["material_warnings"] == warned
        para = t["paraphrases"]
        assert para["accepted"] == 0 and para["ready"] == 0 and para["llm_calls"] >= 1
        assert para["last_refused"]["figure"] == FIGURE and para["last_refused"]["absolute"] == ABSOLUTE

        with playwright() as pw, signed_in(pw, d.url, ADMIN_TOKEN) as page:
            page.wait_for_selector("#talk-panel:not([hidden])", timeout=15000)
            page.wait_for_function("() => Number(document.getElementById('talk-lines').textContent) >= 3",
                                   timeout=10000)
            assert page.inner_text("#talk-distinct") == "2"
            assert page.inner_text("#talk-window-label") == "repeats in the last 10 min"
            assert int(page.inner_text("#talk-repeats-window")) >= 1
            assert int(page.inner_text("#talk-repeats-total")) >= 1
            assert page.is_visible("#talk-thin")
            shown = page.eval_on_selector_all("#talk-warnings li", "els => els.map(e => e.textContent)")
            assert shown == warned
            assert page.is_visible("#talk-paraphrases")
            assert page.inner_text("#talk-para-ready") == "0" and page.inner_text("#talk-para-accepted") == "0"
            figure = page.inner_text("#talk-rejected li[data-reason=figure]")
            assert "refused: figure" in figure and f"last: {FIGURE}" in figure
            assert f"last: {ABSOLUTE}" in page.inner_text("#talk-rejected li[data-reason=absolute]")
    finally:
        d.stop()
