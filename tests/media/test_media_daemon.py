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

from broadcaster import faults
from broadcaster.config import ConfigError, load_config
from broadcaster.daemon import Daemon, describe_reload
from broadcaster.logs import clear_secrets, redact
from tests.media.streamcheck import assert_valid_stream
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


def write_config(path: Path, rooms: list[dict], tmp: Path, **daemon) -> Path:
    # Inline: these tests reach into the rooms (clocks, shows) the reload keeps or replaces; the same RoomSlot
    # runs in each worker (tests/scale covers the workers). No file watcher: the tests reload when they mean to.
    daemon = {"workers": {"mode": "inline"}, "watch_config": False, **daemon}
    path.write_text(yaml.safe_dump({
        "daemon": {"admin": {"port": 0}, "state_dir": str(tmp / "state"), "log_format": "json", **daemon},
        "rooms": rooms,
    }, allow_unicode=True))
    return path


@pytest.mark.slow
def test_sigterm_mid_line_finishes_the_sentence_and_exits_0(tmp_path):
    (tmp_path / "talk.yaml").write_text(yaml.safe_dump(TALK, allow_unicode=True))
    cfg = write_config(tmp_path / "a.yaml", [room("r", tmp_path, director={
        "talk": {"file": str(tmp_path / "talk.yaml"), "gap_s": 0.2}}, audit={"path": str(tmp_path / "audit.jsonl")})],
        tmp_path, shutdown_grace_s=12.0,  # the first sentence is about 9 s: its rest always fits the grace
        workers={"mode": "process"})  # the daemon drains the room's worker
    proc = subprocess.Popen([sys.executable, "-m", "broadcaster.cli", "run", "-c", str(cfg)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        rec = tmp_path / "r.flv"
        # (the recording is flushed packet by packet, so its size follows the stream as it goes)
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
    assert took <= 13.0, f"exit took {took:.1f}s"
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
        assert result == {"added": ["c"], "removed": [], "changed": ["b"], "live": [], "unchanged": ["a"],
                          "failed": {}}
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


async def _until(pred, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def _audit(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


async def test_content_changes_apply_live_at_the_next_line_without_a_cut(tmp_path):
    """Words, talk track and persona change in the running room: same room, same clock, one recording file,
    and the lines after the reload come from the new talk track."""
    (tmp_path / "talk1.yaml").write_text(yaml.safe_dump({"segments": [{"name": "a", "lines": ["第一版的话。"]}]},
                                                        allow_unicode=True))
    (tmp_path / "talk2.yaml").write_text(yaml.safe_dump({"segments": [{"name": "b", "lines": ["第二版的话。"]}]},
                                                        allow_unicode=True))
    (tmp_path / "words.txt").write_text("坏词\n", encoding="utf-8")

    def cfg(talk: str, **extra) -> dict:
        return room("r", tmp_path, director={"talk": {"file": str(tmp_path / talk), "gap_s": 0.1}}, **extra)

    path = write_config(tmp_path / "c.yaml", [cfg("talk1.yaml")], tmp_path)
    daemon = Daemon(load_config(path), path)
    await daemon.start()
    try:
        before = daemon.rooms["r"]
        await _until(lambda: any(a.get("text") == "第一版的话。" for a in _audit(tmp_path / "audit-r.jsonl")), 30,
                     "a line of the first talk track")
        write_config(path, [cfg("talk2.yaml", moderation={"words_file": str(tmp_path / "words.txt")},
                               brain={"persona": {"name": "小新"}})], tmp_path)
        dry = await daemon.plan()
        assert dry["rooms"] == [{"room": "r", "action": "live", "sections": ["director", "brain", "moderation"],
                                 "cuts_stream": False}]
        result = await daemon.reload()
        assert result["live"] == ["r"] and not result["failed"], result
        assert daemon.rooms["r"] is before and before.clock.running
        assert before.show.applied == 1 and before.show.brain.cfg.persona.name == "小新"
        assert daemon.config.room("r").moderation.words_file == tmp_path / "words.txt"
        await _until(lambda: any(a.get("text") == "第二版的话。" for a in _audit(tmp_path / "audit-r.jsonl")), 30,
                     "a line of the new talk track")
        frames = before.clock.frames
    finally:
        await daemon.stop()
    assert not (tmp_path / "r~1.flv").exists(), "a content change never starts a new recording"
    rec = probe(tmp_path / "r.flv")
    assert_valid_stream(rec, width=320, height=180, fps=25, sample_rate=44100, min_seconds=1.0)
    assert rec.video.duration >= frames / 25 - 0.1, "no gap: one recording spans the whole run"


async def test_files_edited_in_place_apply_live_though_the_yaml_is_unchanged(tmp_path):
    """Operators edit the talk track and the words file where they are (a ConfigMap update does the same): the
    reload sees the sections whose files changed and applies them live; an untouched file changes nothing."""
    talk, words = tmp_path / "talk.yaml", tmp_path / "words.txt"
    talk.write_text(yaml.safe_dump({"segments": [{"name": "a", "lines": ["旧版的话。"]}]}, allow_unicode=True))
    words.write_text("苹果派\n", encoding="utf-8")
    path = write_config(tmp_path / "c.yaml", [room("r", tmp_path, director={"talk": {"file": str(talk), "gap_s": 0.1}},
                                                   moderation={"words_file": str(words)})], tmp_path)
    daemon = Daemon(load_config(path), path)
    await daemon.start()
    try:
        r = daemon.rooms["r"]
        await _until(lambda: any(a.get("text") == "旧版的话。" for a in _audit(tmp_path / "audit-r.jsonl")), 30,
                     "a line of the first talk track")
        assert (await daemon.reload())["unchanged"] == ["r"], "nothing edited: nothing applies"
        assert r.show.director.moderator.check("香蕉船来了").ok
        talk.write_text(yaml.safe_dump({"segments": [{"name": "a", "lines": ["新版的话。"]}]}, allow_unicode=True))
        words.write_text("苹果派\n香蕉船\n", encoding="utf-8")
        assert (await daemon.plan())["rooms"] == [{"room": "r", "action": "live", "sections": ["director", "moderation"],
                                                   "cuts_stream": False}]
        result = await daemon.reload()
        assert result["live"] == ["r"] and not result["failed"], result
        assert daemon.rooms["r"] is r and r.clock.running, "the same room, still on air"
        assert not r.show.director.moderator.check("香蕉船来了").ok, "the edited words file is in force"
        await _until(lambda: any(a.get("text") == "新版的话。" for a in _audit(tmp_path / "audit-r.jsonl")), 30,
                     "a line of the edited talk track")
        assert (await daemon.reload())["unchanged"] == ["r"], "applied once, not at every reload"
    finally:
        await daemon.stop()
    assert not (tmp_path / "r~1.flv").exists(), "a content change never starts a new recording"


async def test_a_media_change_that_cannot_be_prepared_leaves_the_old_room_on_air(tmp_path):
    path = write_config(tmp_path / "m.yaml", [room("a", tmp_path)], tmp_path)
    daemon = Daemon(load_config(path), path)
    await daemon.start()
    try:
        old = daemon.rooms["a"]
        await asyncio.sleep(1.0)
        faster = {"width": 320, "height": 180, "fps": 25, "bitrate_kbps": 400}
        write_config(path, [room("a", tmp_path, video=faster)], tmp_path)
        assert (await daemon.plan())["rooms"][0] == {"room": "a", "action": "cut", "sections": ["video"],
                                                     "cuts_stream": True}
        faults.arm(faults.ROOM_PREPARE_ERROR, "a")
        try:
            result = await daemon.reload()
        finally:
            faults.disarm()
        assert result["failed"] == {"a": "FaultInjected: room.prepare_error (injected)"}, result
        assert daemon.rooms["a"] is old and old.clock.running, "the old room stays on air"
        assert daemon.config.room("a").video.bitrate_kbps == 300, "its running config stays the old one"
        status = daemon.watchdog.tick() and daemon.watchdog._last_status
        assert "NOT applied" in status and "room.prepare_error" in status, status
        assert "NOT applied" in describe_reload(result)
        await asyncio.sleep(1.0)

        again = await daemon.reload()  # the same file, now that it can be prepared: it applies
        assert again["changed"] == ["a"] and not again["failed"], again
        assert daemon.rooms["a"] is not old and not old.clock.running and daemon.rooms["a"].clock.running
        assert "NOT applied" not in (daemon.watchdog.tick() and daemon.watchdog._last_status)
        await asyncio.sleep(1.5)
    finally:
        await daemon.stop()
    first, second = probe(tmp_path / "a.flv"), probe(tmp_path / "a~1.flv")
    assert_valid_stream(first, width=320, height=180, fps=25, sample_rate=44100, min_seconds=1.9)
    assert_valid_stream(second, width=320, height=180, fps=25, sample_rate=44100, min_seconds=1.0)


async def test_a_reloaded_secret_is_masked_before_anything_can_log_it(tmp_path):
    clear_secrets()
    path = write_config(tmp_path / "s.yaml", [room("a", tmp_path)], tmp_path)
    daemon = Daemon(load_config(path), path)
    await daemon.start()
    try:
        key = "brand-new-stream-key-7781"
        outputs = [{"type": "record", "path": str(tmp_path / "a.flv")},
                   {"type": "rtmp", "url": f"rtmp://127.0.0.1:9/live/{key}", "reconnect_delay_s": 0.2}]
        write_config(path, [room("a", tmp_path, outputs=outputs)], tmp_path)
        faults.arm(faults.ROOM_PREPARE_ERROR, "a")  # even a reload that does not apply has registered it
        try:
            await daemon.reload()
        finally:
            faults.disarm()
        assert key not in redact(f"upstream said: bad key {key}")
    finally:
        await daemon.stop()
        clear_secrets()


async def test_a_refused_file_changes_nothing_and_says_so(tmp_path):
    path = write_config(tmp_path / "b.yaml", [room("a", tmp_path)], tmp_path)
    daemon = Daemon(load_config(path), path)
    await daemon.start()
    try:
        before = daemon.rooms["a"]
        write_config(path, [room("a", tmp_path, director={"talk": {"file": str(tmp_path / "missing.yaml")}})],
                     tmp_path)
        with pytest.raises(ConfigError, match=r"rooms\[0\]\.director\.talk\.file: file .* does not exist"):
            await daemon.reload()
        assert daemon.rooms["a"] is before and before.clock.running
        assert "reload refused" in (daemon.watchdog.tick() and daemon.watchdog._last_status)
    finally:
        await daemon.stop()


async def test_a_new_knowledge_base_drops_answers_cached_from_the_old_one(tmp_path):
    """Both brains share one Redis: an answer cached under the old KB is served after a persona change (same
    KB) and never after the KB changed."""
    import shutil

    from tests.support.redis import start_redis

    server, url = start_redis(tmp_path / "redis.db")
    kb = tmp_path / "kb"
    shutil.copytree(ROOT / "configs" / "demo" / "kb", kb)

    def cfg(name: str) -> dict:
        return room("k", tmp_path, redis_url=url, brain={"kb": {"dir": str(kb)}, "persona": {"name": name}})

    path = write_config(tmp_path / "k.yaml", [cfg("小安")], tmp_path)
    daemon = Daemon(load_config(path), path)
    await daemon.start()
    try:
        show = daemon.rooms["k"].show
        question = "这个杯子能不能装热汤？"
        await show.brain.cache.put(question, "旧知识库的回答。", source="llm")
        old_version = show.brain.cache.kb_version

        write_config(path, [cfg("小新")], tmp_path)  # brain rebuilt, same KB: the cached answer stays good
        assert (await daemon.reload())["live"] == ["k"]
        hit = await show.brain.cache.get(question)
        assert show.brain.cache.kb_version == old_version and hit is not None and hit.entry.answer == "旧知识库的回答。"

        # A reload that names another KB folder (one more passage): a new KB version.
        kb2 = tmp_path / "kb2"
        shutil.copytree(kb, kb2)
        (kb2 / "soup.md").write_text("# 汤\n\n杯子可以装热汤，但不要装满。\n", encoding="utf-8")
        write_config(path, [room("k", tmp_path, redis_url=url, brain={"kb": {"dir": str(kb2)},
                                                                      "persona": {"name": "小新"}})], tmp_path)
        assert (await daemon.reload())["live"] == ["k"]
        assert show.brain.cache.kb_version != old_version
        assert await show.brain.cache.get(question) is None, "an answer from the old KB is never served"
    finally:
        await daemon.stop()
        server.shutdown()


async def test_a_content_swap_forgets_no_chat_and_answers_nothing_twice(tmp_path):
    """A question queued before the swap is answered after it, once; the same message again is a duplicate."""
    from broadcaster.config import RoomConfig
    from broadcaster.room import Room
    from danmaku.event import Event, EventKind, User
    from tests.support.media import CardAvatar

    base = {"id": "q", "video": {"width": 160, "height": 96, "fps": 25}, "outputs": [],
            "brain": {"kb": {"dir": str(ROOT / "configs" / "demo" / "kb")}},
            "audit": {"path": str(tmp_path / "audit.jsonl")}}
    r = Room(RoomConfig.model_validate(base), avatar=CardAvatar(160, 96))
    await r.start()
    try:
        r.pause()  # nothing is picked while paused: the question waits in the queue across the swap
        await asyncio.sleep(0.3)
        question = Event("test", "q", EventKind.COMMENT, User("u1", "小鹿"), "这个杯子能保温多久？", msg_id="m1")
        r.show.offer(question)
        old_director = r.show.director
        assert len(old_director.queue) == 1
        (tmp_path / "words.txt").write_text("坏词\n", encoding="utf-8")
        changed = await r.apply(RoomConfig.model_validate({**base, "moderation": {"words_file": str(tmp_path / "words.txt")}}))
        assert changed == ["moderation"] and r.show.director is not old_director and r.show.applied == 1
        assert len(r.show.director.queue) == 1, "the queued question came along"
        r.show.offer(Event("test", "q", EventKind.COMMENT, User("u1", "小鹿"), "这个杯子能保温多久？", msg_id="m1"))
        assert r.show.director.drops.get("duplicate_id") == 1 and len(r.show.director.queue) == 1, "seen ids came too"
        r.resume()
        await _until(lambda: any(a.get("asked") for a in _audit(tmp_path / "audit.jsonl")), 30, "the answer")
        await asyncio.sleep(1.0)
    finally:
        await r.stop(0.5)
    answers = [a for a in _audit(tmp_path / "audit.jsonl") if a.get("line_source") == "answer"]
    assert [a["asked"] for a in answers] == ["这个杯子能保温多久？"], answers
