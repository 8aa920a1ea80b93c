"""Chaos: faults against a real daemon process and a real ingest (FFmpeg's RTMP listener). Every test ends
reading the recordings and the ingest's copy back: no timestamp gap anywhere, and no secret in the logs."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.chaos.chaos_support import (
    ADMIN_TOKEN,
    STREAM_KEY,
    BlackHole,
    Daemon,
    assert_json_logs,
    assert_no_gap,
    assert_no_secret,
    config,
    free_port,
    recordings,
    room,
)
from tests.support.servers import FfmpegIngest, wait_until

pytestmark = pytest.mark.slow

# Questions the demo knowledge base cannot answer: they go to the LLM.
OFF_KB = ["你们老板叫什么名字？", "明天天气怎么样？", "你会唱歌吗？", "火星上能用这个杯子吗？"]


def _chat(tmp: Path) -> Path:
    path = tmp / "offkb.jsonl"
    lines = [{"t": 0.5 + 1.5 * i, "kind": "comment", "user": {"id": f"u{i}", "name": f"观众{i}"}, "text": q,
              "msg_id": f"q{i}"} for i, q in enumerate(OFF_KB)]
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return path


def _audit(tmp: Path, rid: str = "r") -> list[dict]:
    path = tmp / f"audit-{rid}.jsonl"
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _on_air(d: Daemon, ingest: FfmpegIngest | None, timeout: float = 90.0) -> None:
    assert wait_until(d.ready, timeout, interval=0.3), d.logs()[-3000:]
    if ingest is not None:
        assert ingest.wait_publisher(30), "".join(ingest.output)[-2000:]


def _finish(d: Daemon, *ingests: FfmpegIngest) -> str:
    code = d.stop()
    for ingest in ingests:
        ingest.finish(20)
    logs = d.logs()
    assert code == 0, logs[-3000:]
    return logs


@pytest.fixture
def ingests():
    made: list[FfmpegIngest] = []

    def make(port: int, out: Path) -> FfmpegIngest:
        ingest = FfmpegIngest(port, out, key=STREAM_KEY).start()
        made.append(ingest)
        return ingest

    yield make
    for ingest in made:
        ingest.kill()


@pytest.fixture
def daemons():
    made: list[Daemon] = []

    def make(tmp: Path, cfg: dict, **kw) -> Daemon:
        d = Daemon(tmp, cfg, **kw)
        made.append(d)
        return d

    yield make
    for d in made:
        d.kill()


def test_bad_reloads_and_a_room_that_cannot_start_never_take_the_room_off_air(tmp_path, ingests, daemons):
    """Alias bomb and friends, a missing talk track, a portrait that is no image: each reload is refused or
    not applied, the room streams on in the same file; a later good reload is handed over."""
    port = free_port()
    first = ingests(port, tmp_path / "ingest1.flv")
    good = config(tmp_path, [room(tmp_path, rtmp_port=port)])
    d = daemons(tmp_path, good).start()
    _on_air(d, first)
    time.sleep(2.0)

    hostile = {
        "alias bomb": "\n".join(['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
                                + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
                                + ["rooms: [{id: r}]"]),
        "recursion": "rooms: &r [*r]\n",
        "deep": "rooms: " + "[" * 3000 + "]" * 3000 + "\n",
        "huge": "rooms: [{id: r}]\n#" + "x" * (2 << 20) + "\n",
    }
    missing_talk = config(tmp_path, [room(tmp_path, rtmp_port=port, director={"talk": {"file": str(tmp_path / "x.yaml")}})],
                          port=d.port)
    for name, text in [*hostile.items(), ("missing talk track", missing_talk)]:
        mark = len(d.logs())
        d.write(text)
        started = time.monotonic()
        d.sighup()
        assert d.wait_log("reload refused", 20, after=mark), f"{name}: {d.logs()[mark:][-2000:]}"
        assert time.monotonic() - started < 15, f"{name}: took too long to refuse"
        assert d.ready(), f"{name}: the room went off air"
    assert "does not exist" in d.logs() and "alias bomb" in d.logs()

    # Bodies the API cannot use are a 400, never a 500.
    deep = b"[" * 5000 + b"]" * 5000
    assert d.api("POST", "/api/reload", deep)[0] == 400
    assert d.api("POST", "/api/rooms/r/say", deep)[0] == 400

    # A room that passes `check` but cannot be prepared: the old room stays on air, and everyone is told.
    (tmp_path / "face.jpg").write_bytes(b"not an image at all")
    broken = config(tmp_path, [room(tmp_path, rtmp_port=port, avatar={"kind": "portrait", "path": str(tmp_path / "face.jpg")})],
                    port=d.port)
    d.write(broken)
    mark = len(d.logs())
    d.sighup()
    assert d.wait_log("keeps its running config", 60, after=mark), d.logs()[mark:][-3000:]
    status, result = d.api("POST", "/api/reload")  # the same through the API: said as truthfully
    assert status == 200 and result["ok"] is False and "not an image" in result["failed"]["r"], result
    assert d.ready() and len(recordings(tmp_path)) == 1, "still on air, in the same recording"
    assert d.room()["sinks"][1]["reconnects"] == 0, "and the same RTMP session"

    # The fixed file: handed over (a new recording file, a republish), and the standing note is cleared.
    fixed = config(tmp_path, [room(tmp_path, rtmp_port=port, video={"width": 320, "height": 180, "fps": 25,
                                                                   "bitrate_kbps": 400})], port=d.port)
    d.write(fixed)
    mark = len(d.logs())
    d.sighup()
    assert d.wait_log("handed over r", 90, after=mark), d.logs()[mark:][-3000:]
    first.finish(20)  # the old publisher left before the new one could connect: one publisher per key
    second = ingests(port, tmp_path / "ingest2.flv")
    assert second.wait_publisher(30), "".join(second.output)[-2000:]
    assert wait_until(d.ready, 10)
    time.sleep(2.5)
    logs = _finish(d, second)

    files = recordings(tmp_path)
    assert len(files) == 2, files
    for f in files:
        assert_no_gap(f, min_seconds=2.0)
    assert_no_gap(tmp_path / "ingest1.flv", min_seconds=2.0)
    assert_no_gap(tmp_path / "ingest2.flv", min_seconds=2.0)
    assert_no_secret(logs)
    assert_json_logs(logs)


class _EchoesTheKey(BaseHTTPRequestHandler):
    """An LLM upstream that refuses the key and quotes it back (as some providers' 401 bodies do)."""

    seen = 0

    def do_POST(self) -> None:
        type(self).seen += 1
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        body = json.dumps({"error": {"message": f"Incorrect API key provided: {key}"}}).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def test_content_reload_mid_sentence_applies_live_and_new_secrets_are_masked(tmp_path, ingests, daemons):
    port = free_port()
    ingest = ingests(port, tmp_path / "ingest.flv")
    d = daemons(tmp_path, config(tmp_path, [room(tmp_path, rtmp_port=port)])).start()
    _on_air(d, ingest)
    assert wait_until(lambda: any(a.get("line_source") == "script" for a in _audit(tmp_path)), 60)

    upstream = ThreadingHTTPServer(("127.0.0.1", 0), _EchoesTheKey)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    new_key = "sk-proj-NEWKEY-only-in-the-reloaded-file-7c1e"
    (tmp_path / "words.txt").write_text("违禁词\n", encoding="utf-8")
    changed = room(tmp_path, rtmp_port=port,
                   sources=[{"type": "replay", "path": str(_chat(tmp_path)), "loop": True, "speed": 2}],
                   moderation={"words_file": str(tmp_path / "words.txt")},
                   brain={"kb": {"dir": str(os.fspath(Path(__file__).resolve().parents[2] / "configs/demo/kb"))},
                          "persona": {"name": "小新"},
                          "llm": {"backend": "openai", "base_url": f"http://127.0.0.1:{upstream.server_port}/v1",
                                  "api_key": new_key, "model": "m", "first_token_timeout_s": 2.0,
                                  "total_timeout_s": 4.0}})
    d.write(config(tmp_path, [changed], port=d.port))
    assert wait_until(lambda: d.room().get("speaking"), 30), "reload while a sentence is being spoken"
    mark = len(d.logs())
    d.sighup()
    assert d.wait_log("applied live r", 60, after=mark), d.logs()[mark:][-3000:]
    assert wait_until(lambda: _EchoesTheKey.seen >= 1, 60), "the new LLM settings are in use"
    assert d.wait_log("401", 30, after=mark), "the upstream's refusal was logged (masked)"
    sinks = d.room()["sinks"]
    assert all(s["reconnects"] == 0 for s in sinks) and len(recordings(tmp_path)) == 1, "no cut anywhere"
    assert ingest.proc is not None and ingest.proc.poll() is None, "the ingest kept its one publisher"
    dry = d.api("POST", "/api/reload", b'{"dry_run": true}')[1]
    assert dry["rooms"] == [{"room": "r", "action": "keep", "sections": [], "cuts_stream": False}]
    time.sleep(2.0)
    logs = _finish(d, ingest)
    upstream.shutdown()

    assert_no_gap(recordings(tmp_path)[0], min_seconds=5.0)
    assert_no_gap(tmp_path / "ingest.flv", min_seconds=5.0)
    assert_no_secret(logs, secrets=(STREAM_KEY, ADMIN_TOKEN, new_key))
    assert_json_logs(logs)


class _LoopThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    def run(self, coro, timeout: float = 30.0):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)


def test_redis_frozen_then_killed_and_an_llm_that_hangs(tmp_path, ingests, daemons):
    from tests.brain.llm_fakes import FakeOpenAI
    from tests.support.redis import start_redis

    redis, redis_url = start_redis(tmp_path / "redis.db")
    llm_loop = _LoopThread()
    llm = llm_loop.run(FakeOpenAI(mode="hang").start())
    port = free_port()
    ingest = ingests(port, tmp_path / "ingest.flv")
    cfg = room(tmp_path, rtmp_port=port,
               sources=[{"type": "replay", "path": str(_chat(tmp_path)), "loop": True, "speed": 2}],
               brain={"kb": {"dir": str(Path(__file__).resolve().parents[2] / "configs/demo/kb")},
                      "llm": {"backend": "openai", "base_url": llm.base_url, "api_key": "sk-hang-1234567",
                              "model": "m", "first_token_timeout_s": 1.0, "total_timeout_s": 2.0}})
    d = daemons(tmp_path, config(tmp_path, [cfg], redis_url=redis_url)).start()
    try:
        _on_air(d, ingest)
        assert wait_until(lambda: len(llm.requests) >= 1, 60), "questions reach the (hanging) LLM"
        pid = redis.pid
        os.kill(pid, signal.SIGSTOP)  # frozen: connections open, nothing answers
        try:
            frozen_until = time.monotonic() + 6.0
            while time.monotonic() < frozen_until:
                assert d.ready(), "off air while Redis is frozen"
                time.sleep(0.5)
        finally:
            os.kill(pid, signal.SIGCONT)
        time.sleep(1.0)
        os.kill(pid, signal.SIGKILL)  # and gone
        spoken = len(_audit(tmp_path))
        assert wait_until(lambda: len(_audit(tmp_path)) >= spoken + 2, 60), "lines go on without Redis or LLM"
        assert d.ready()
        time.sleep(1.0)
    finally:
        logs = _finish(d, ingest)
        llm_loop.run(llm.stop())
    assert_no_gap(recordings(tmp_path)[0], min_seconds=8.0)
    assert_no_gap(tmp_path / "ingest.flv", min_seconds=8.0)
    assert_no_secret(logs, secrets=(STREAM_KEY, ADMIN_TOKEN, "sk-hang-1234567"))
    assert_json_logs(logs)


def test_an_ingest_that_never_answers_then_comes_back(tmp_path, ingests, daemons):
    port = free_port()
    hole = BlackHole(port)
    d = daemons(tmp_path, config(tmp_path, [room(tmp_path, rtmp_port=port)])).start()
    try:
        assert wait_until(d.ready, 90, interval=0.3), d.logs()[-3000:]
        until = time.monotonic() + 6.0
        while time.monotonic() < until:  # the push hangs in its handshake; the room does not care
            assert d.ready()
            time.sleep(0.5)
        assert hole.accepted, "the sink reached the black hole"
    finally:
        hole.close()
    ingest = ingests(port, tmp_path / "ingest.flv")
    assert ingest.wait_publisher(30), "".join(ingest.output)[-2000:]
    time.sleep(3.0)
    logs = _finish(d, ingest)
    assert_no_gap(recordings(tmp_path)[0], min_seconds=8.0)
    assert_no_gap(tmp_path / "ingest.flv", min_seconds=2.0)
    assert_no_secret(logs)
    assert_json_logs(logs)


def test_sigkill_loses_at_most_a_gop_and_a_restart_goes_on_in_a_new_file(tmp_path, ingests, daemons):
    port = free_port()
    first = ingests(port, tmp_path / "ingest1.flv")
    cfg = config(tmp_path, [room(tmp_path, rtmp_port=port)])
    d = daemons(tmp_path, cfg).start()
    _on_air(d, first)
    time.sleep(4.0)
    frames = d.room()["frames"]
    d.kill()
    on_disk = assert_no_gap(recordings(tmp_path)[0], min_seconds=1.0, complete=False)
    assert on_disk >= frames / 25 - 2.0 - 0.2, f"{on_disk:.2f}s on disk of {frames / 25:.2f}s streamed"
    first.finish(20)
    size = recordings(tmp_path)[0].stat().st_size

    second = ingests(port, tmp_path / "ingest2.flv")
    again = daemons(tmp_path, cfg).start()
    _on_air(again, second)
    time.sleep(3.0)
    logs = _finish(again, second)
    files = recordings(tmp_path)
    assert len(files) == 2 and files[0].stat().st_size == size, "the killed run's file is never overwritten"
    assert_no_gap(files[1], min_seconds=2.0)
    assert_no_gap(tmp_path / "ingest1.flv", min_seconds=1.0, complete=False)
    assert_no_gap(tmp_path / "ingest2.flv", min_seconds=2.0)
    assert_no_secret(logs)
    assert ADMIN_TOKEN not in (tmp_path / "daemon.log").read_text()
