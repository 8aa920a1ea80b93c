"""Bilibili open platform connector against a loopback fake: signed start/heartbeat/end, verbatim auth, restarts."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from collections.abc import AsyncIterator
from typing import Any

import pytest
from dm_fakes import BiliOpenFake, Collector, until

from danmaku.bilibili.open import sign_headers
from danmaku.config import BilibiliOpenSource
from danmaku.event import EventKind
from danmaku.sources import open_source


def test_signature_matches_a_hand_computed_vector() -> None:
    body = b'{"code":"IDCODE","app_id":1650000000001}'
    h = sign_headers(body, "AKID", "AKSECRET", nonce="n0nce", timestamp=1700000000)
    md5 = hashlib.md5(body).hexdigest()
    assert h["x-bili-content-md5"] == md5
    # The documented string to sign, written out by hand: six key:value lines sorted by key, no trailing newline.
    to_sign = (
        "x-bili-accesskeyid:AKID\n"
        f"x-bili-content-md5:{md5}\n"
        "x-bili-signature-method:HMAC-SHA256\n"
        "x-bili-signature-nonce:n0nce\n"
        "x-bili-signature-version:1.0\n"
        "x-bili-timestamp:1700000000"
    )
    assert h["Authorization"] == hmac.new(b"AKSECRET", to_sign.encode(), hashlib.sha256).hexdigest()
    # The same vector as fixed hex (computed once from the string above), so a change of algorithm shows.
    assert md5 == "394da85b624b9ac61ec8924d3937ab82"
    assert h["Authorization"] == "d0daa254ac765f9c942ff0a03b839754a5d5642e8fd4d3a5bf1f199fa1fa70a9"
    assert h["Content-Type"] == "application/json" and h["Accept"] == "application/json"


@pytest.fixture
async def fake() -> AsyncIterator[BiliOpenFake]:
    f = BiliOpenFake()
    await f.start()
    yield f
    await f.stop()


def cfg_for(fake: BiliOpenFake, **kw: Any) -> BilibiliOpenSource:
    base: dict[str, Any] = {
        "type": "bilibili_open", "code": BiliOpenFake.CODE, "app_id": BiliOpenFake.APP_ID,
        "access_key_id": BiliOpenFake.KEY_ID, "access_key_secret": BiliOpenFake.KEY_SECRET, "api_base": fake.base,
        "heartbeat_s": 0.2, "project_heartbeat_s": 0.2, "reconnect_delay_s": 0.05, "reconnect_max_delay_s": 0.2,
    }
    base.update(kw)
    return BilibiliOpenSource.model_validate(base)


P = "LIVE_OPEN_PLATFORM_"


async def test_open_platform_session(fake: BiliOpenFake) -> None:
    src = open_source(cfg_for(fake), "op")
    col = Collector(src)
    await asyncio.wait_for(fake.connected.wait(), 5)
    assert fake.calls[0] == ("start", {"code": BiliOpenFake.CODE, "app_id": BiliOpenFake.APP_ID})
    assert fake.bad_signatures == 0
    await fake.push([
        {"cmd": P + "DM", "data": {"uname": "观众", "open_id": "o1", "uface": "f1", "msg": "你好", "msg_id": "d1",
                                   "guard_level": 3, "fans_medal_wearing_status": True, "fans_medal_name": "团",
                                   "fans_medal_level": 9, "dm_type": 0, "room_id": 9000}},
        {"cmd": P + "SEND_GIFT", "data": {"open_id": "o2", "uname": "送礼", "gift_id": 1, "gift_name": "牛哇",
                                          "gift_num": 2, "price": 100, "paid": True, "msg_id": "g1",
                                          "combo_gift": True, "combo_info": {"combo_id": "c1", "combo_count": 2}}},
        {"cmd": P + "GUARD", "data": {"user_info": {"open_id": "o3", "uname": "舰长"}, "guard_level": 3,
                                      "guard_num": 1, "guard_unit": "月", "price": 198000, "msg_id": "gd1"}},
        {"cmd": P + "SUPER_CHAT", "data": {"open_id": "o4", "uname": "老板", "message": "问个问题", "rmb": 50,
                                           "message_id": 77, "start_time": 100, "end_time": 160, "msg_id": "s1"}},
        {"cmd": P + "LIKE", "data": {"open_id": "o5", "uname": "赞", "like_text": "点赞了", "like_count": 7,
                                     "msg_id": "l1"}},
        {"cmd": P + "LIVE_ROOM_ENTER", "data": {"open_id": "o6", "uname": "进", "msg_id": "e1"}},
        {"cmd": P + "SUPER_CHAT_DEL", "data": {"message_ids": [77], "msg_id": "sd"}},
        {"cmd": P + "NEW_THING", "data": {}},
    ])
    evs = await col.wait_for(7)
    dm = evs[0]
    assert (dm.kind, dm.text, dm.msg_id) == (EventKind.COMMENT, "你好", "d1")
    assert dm.user is not None and (dm.user.id, dm.user.guard_level, dm.user.medal_level) == ("o1", 3, 9)
    assert evs[1].kind == EventKind.GIFT and evs[1].value_milli == 200 and evs[1].extra["combo_id"] == "c1"
    assert evs[2].kind == EventKind.GUARD and evs[2].value_milli == 198_000
    assert evs[3].kind == EventKind.SUPER_CHAT and evs[3].value_milli == 50_000 and evs[3].extra["duration_s"] == 60
    assert evs[4].kind == EventKind.LIKE and evs[4].extra == {"count": 7}
    assert evs[5].kind == EventKind.ENTER
    assert evs[6].extra == {"type": "sc_delete", "ids": ["77"]}
    assert src.health().unknown_commands == 1

    await until(lambda: len([c for c in fake.calls if c[0] == "heartbeat"]) >= 3)
    assert all(c[1] == {"game_id": "game-1"} for c in fake.calls if c[0] == "heartbeat")
    await until(lambda: len(fake.conns[-1].heartbeats) >= 3)

    # INTERACTION_END: the platform stopped pushing; start again and keep going.
    fake.connected.clear()
    await fake.push([{"cmd": P + "INTERACTION_END", "data": {"game_id": "game-1"}}])
    await asyncio.wait_for(fake.connected.wait(), 5)
    assert fake.games == 2 and fake.conns[-1].auth["game_id"] == "game-2"
    await fake.push([{"cmd": P + "DM", "data": {"open_id": "o1", "uname": "u", "msg": "again", "msg_id": "d2"}}])
    assert (await col.wait_for(8))[7].text == "again"

    # Heartbeat 7003 (game closed): start again.
    fake.connected.clear()
    fake.heartbeat_code = 7003
    await asyncio.wait_for(fake.connected.wait(), 5)
    fake.heartbeat_code = 0
    assert fake.games == 3
    await col.close()
    ends = [c for c in fake.calls if c[0] == "end"]
    assert ends == [("end", {"app_id": BiliOpenFake.APP_ID, "game_id": "game-3"})]
    assert fake.bad_signatures == 0


async def test_wrong_secret_is_reported(fake: BiliOpenFake) -> None:
    src = open_source(cfg_for(fake, access_key_secret="nope"), "op2")
    col = Collector(src)
    await until(lambda: src.health().reconnects >= 1)
    assert "4002" in src.health().last_warning and fake.bad_signatures >= 1
    await col.close()


async def test_cancelled_consumer_still_ends_the_game_once(fake: BiliOpenFake) -> None:
    # What the room does on shutdown: cancel the task iterating events(), then stop() every source.
    src = open_source(cfg_for(fake), "op3")
    col = Collector(src)
    await asyncio.wait_for(fake.connected.wait(), 5)
    col.task.cancel()
    await asyncio.gather(col.task, return_exceptions=True)
    await asyncio.gather(src.stop(), src.stop())
    assert [c for c in fake.calls if c[0] == "end"] == [("end", {"app_id": BiliOpenFake.APP_ID, "game_id": "game-1"})]
