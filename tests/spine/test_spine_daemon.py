"""The daemon's lifecycle: SIGTERM ends cleanly after the sentence being spoken; SIGHUP/reload leaves
unchanged rooms streaming without a glitch."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from broadcaster.config import load_config
from broadcaster.daemon import Daemon
from tests.spine.streamcheck import assert_valid_stream
from tests.support.media import probe
from tests.support.servers import ROOT, wait_until

TALK = {"segments": [{"name": "pitch", "lines": [
    "这是一句很长的介绍，我们的保温杯采用三百一十六不锈钢内胆，保温效果非常好，欢迎大家下单购买。",
    "第二句话也不短，感谢大家来到直播间，有问题随时在公屏上提出来。",
]}]}


def room(rid: str, tmp: Path, **extra) -> dict:
    cfg = {
        "id": rid,
        "video": {"width": 320, "height": 180, "fps": 25, "bitrate_kbps": 300},
        "outputs": [{"type": "record", "path": str(tmp / f"{rid}.flv")}],
        "audit": {"path": str(tmp / f"audit-{rid}.jsonl")},
    }
    cfg.update(extra)
    return cfg


def write_config(path: Path, rooms: list[dict], tmp: Path) -> Path:
    path.write_text(yaml.safe_dump({
        "daemon": {"admin": {"port": 0}, "state_dir": str(tmp / "state"), "log_format": "json"},
        "rooms": rooms,
    }, allow_unicode=True))
    return path


@pytest.mark.slow
def test_sigterm_mid_line_finishes_the_sentence_and_exits_0(tmp_path):
    (tmp_path / "talk.yaml").write_text(yaml.safe_dump(TALK, allow_unicode=True))
    cfg = write_config(tmp_path / "a.yaml", [room("r", tmp_path, director={
        "talk": {"file": str(tmp_path / "talk.yaml"), "gap_s": 0.2}}, audit={"path": str(tmp_path / "audit.jsonl")})],
        tmp_path)
    proc = subprocess.Popen([sys.executable, "-m", "broadcaster.cli", "run", "-c", str(cfg)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        rec = tmp_path / "r.flv"
        assert wait_until(lambda: rec.exists() and rec.stat().st_size > 60_000, 60), "the room went on air"
        time.sleep(2.0)  # into the first (long) sentence of the talk track
        t = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=15)
        took = time.monotonic() - t
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out[-3000:]
    assert took <= 6.0, f"exit took {took:.1f}s"
    for line in out.splitlines():
        if line.startswith("{"):
            json.loads(line)  # logs are JSON lines for journald
    p = probe(rec)
    assert_valid_stream(p, width=320, height=180, fps=25, sample_rate=44100, min_seconds=2.0)
    assert p.frames_decoded == len(p.video.packets), "every frame decodes, to the end"
    end = p.audio_start + len(p.pcm) / p.sample_rate
    assert p.rms(end - 0.15, end) < 0.01, "the stream ends after the sentence, not in the middle of a word"


async def test_reload_keeps_unchanged_rooms_streaming(tmp_path):
    path = write_config(tmp_path / "d.yaml", [room("a", tmp_path), room("b", tmp_path)], tmp_path)
    daemon = Daemon(load_config(path), path)
    await daemon.start()
    try:
        a_before, b_before = daemon.rooms["a"], daemon.rooms["b"]
        await asyncio.sleep(2.5)
        write_config(path, [room("a", tmp_path),
                            room("b", tmp_path, video={"width": 320, "height": 180, "fps": 25, "bitrate_kbps": 400}),
                            room("c", tmp_path)], tmp_path)
        result = await daemon.reload()
        assert result == {"added": ["c"], "removed": [], "changed": ["b"], "unchanged": ["a"]}
        assert daemon.rooms["a"] is a_before and daemon.rooms["b"] is not b_before
        assert a_before.clock.running and daemon.rooms["c"].clock.running
        await asyncio.sleep(2.5)

        path.write_text("rooms: [")  # a broken file: refused, everything keeps running
        with pytest.raises(Exception, match="invalid YAML"):
            await daemon.reload()
        assert a_before.clock.running
    finally:
        await daemon.stop()
    rec = probe(tmp_path / "a.flv")
    assert_valid_stream(rec, width=320, height=180, fps=25, sample_rate=44100, min_seconds=4.5)
    assert abs(rec.video.duration - a_before.clock.frames / 25) <= 0.1, "no gap in the unchanged room's recording"
    assert (tmp_path / "b.flv").exists() and (tmp_path / "b~1.flv").exists(), "the restarted room keeps both files"
