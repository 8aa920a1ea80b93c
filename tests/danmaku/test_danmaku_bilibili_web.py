"""Bilibili web connector against a loopback fake: bootstrap, auth, heartbeats, decoding, reconnects, silence."""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from dm_fakes import HDR, BiliWebFake, Collector, LoopLag, brotli_frame, cmd_packet, make_tls, packet, until

from danmaku import pb
from danmaku.bilibili import wbi
from danmaku.config import BilibiliWebSource
from danmaku.event import EventKind
from danmaku.sources import open_source


def test_wbi_published_vector() -> None:
    img, sub = "7cd084941338484aae1ad9425b84077c", "4932caff0ff746eab6f01bf08b70ac45"
    assert wbi.mixin_key(img, sub) == "ea1db124af3c7062474693fa704f4ff8"
    signed = wbi.sign({"foo": "114", "bar": "514", "zab": 1919810}, img, sub, wts=1702204169)
    assert signed["w_rid"] == "8f6f2b5b3d485fe1886cec6a0be8c5d4"
    assert signed["wts"] == "1702204169"
    assert wbi.key_from_url(f"https://i0.hdslb.com/bfs/wbi/{img}.png") == img


def cfg_for(fake: BiliWebFake, **kw: Any) -> BilibiliWebSource:
    base = {
        "type": "bilibili_web", "room_id": 5, "api_base": fake.base, "nav_base": fake.base,
        "home_url": fake.base + "/", "scheme": "ws", "heartbeat_s": 0.2, "reconnect_delay_s": 0.05,
        "reconnect_max_delay_s": 0.2, "silent_after_s": None,
        # Never the real fallback host: everything stays on loopback.
        "fallback_host": "127.0.0.1", "fallback_ws_port": fake.port, "fallback_wss_port": fake.port,
    }
    base.update(kw)
    return BilibiliWebSource.model_validate(base)


@pytest.fixture
async def fake() -> AsyncIterator[BiliWebFake]:
    f = BiliWebFake()
    await f.start()
    yield f
    await f.stop()


def danmu(uid: int, name: str, text: str, *, medal: list[Any] | None = None, guard: int = 0, ts: int = 1700000000000,
          rnd: int = 1) -> dict[str, Any]:
    extra = json.dumps({"content": text})
    meta = [0, 1, 25, 16777215, ts, rnd, 0, "abcd", 0, 0, 0, "", 0, "{}", "{}",
            {"extra": extra, "user": {"uid": uid, "base": {"name": name, "face": f"https://i0.hdslb.com/{uid}.jpg"}}}]
    return {"cmd": "DANMU_MSG:4:0:2:2:2:0", "info": [
        meta, text, [uid, name, 0, 0, 0, 10000, 1, ""], medal or [], [21, 0, 5805790, ">50000"], ["", ""], 0, guard,
        None, {"ts": ts // 1000, "ct": "X"}, 0, 0, None, None, 0, 7, [12]]}


def gift_v2_pb() -> str:
    msg = pb.encode([
        (1, 300), (2, "送礼人"), (3, "https://face/300.jpg"), (5, 3),
        (8, [(1, 77), (4, 21000), (5, 12), (6, "粉丝团")]),
        (10, [(1, 31036), (2, "小花花"), (3, 5), (4, 0), (5, 100), (7, 500), (8, "gold"), (9, "tid-a"), (12, 9)]),
        (10, [(1, 1), (2, "辣条"), (3, 10), (5, 0), (7, 0), (8, "silver"), (9, "tid-b")]),
    ])
    return base64.b64encode(msg).decode()


def interact_v2_pb(uid: int, name: str, msg_type: int) -> str:
    return base64.b64encode(pb.encode([(1, uid), (2, name), (5, msg_type), (7, 1700000000),
                                       (22, [(2, [(2, "https://face/iw.jpg")])])])).decode()


COMMANDS = [
    danmu(1001, "观众甲", "主播好", medal=[12, "粉丝团", "主播", 21000, 0, 0, 0, 0, 0, 0, 3, 1, 77], guard=3),
    {"cmd": "SEND_GIFT", "data": {"giftName": "小心心", "giftId": 30607, "num": 2, "uid": 1002, "uname": "送礼者",
                                  "face": "f", "guard_level": 0, "price": 0, "total_coin": 0, "coin_type": "silver",
                                  "tid": "t1", "medal_info": {"medal_name": "", "medal_level": 0}}},
    {"cmd": "SEND_GIFT", "data": {"giftName": "牛哇", "giftId": 31039, "num": 3, "uid": 1003, "uname": "土豪",
                                  "face": "f", "guard_level": 2, "price": 100, "total_coin": 300, "coin_type": "gold",
                                  "tid": "t2", "blind_gift": None,
                                  "medal_info": {"medal_name": "粉丝团", "medal_level": 20}}},
    {"cmd": "SEND_GIFT_V2", "data": {"pb": gift_v2_pb()}},
    {"cmd": "SUPER_CHAT_MESSAGE", "roomid": 21000, "data": {
        "id": 555, "uid": 1004, "price": 30, "message": "请问这个多少钱", "time": 60,
        "user_info": {"uname": "SC老板", "face": "f", "guard_level": 0, "user_level": 20},
        "medal_info": {"medal_name": "粉丝团", "medal_level": 5}}},
    {"cmd": "SUPER_CHAT_MESSAGE_JPN", "roomid": "21000", "data": {
        "id": "555", "uid": "1004", "price": 30, "message": "请问这个多少钱", "message_jpn": "…",
        "user_info": {"uname": "SC老板"}}},
    {"cmd": "GUARD_BUY", "data": {"uid": 1005, "username": "舰长甲", "guard_level": 3, "num": 1, "price": 198000,
                                  "gift_id": 10003, "gift_name": "舰长", "start_time": 1700000001}},
    {"cmd": "USER_TOAST_MSG_V2", "data": {"sender_uinfo": {"uid": 1005, "base": {"name": "舰长甲"}},
                                          "guard_info": {"guard_level": 3, "start_time": 1700000001},
                                          "pay_info": {"num": 1, "price": 198000, "unit": "月"},
                                          "gift_info": {"gift_id": 10003}}},
    {"cmd": "INTERACT_WORD_V2", "data": {"pb": interact_v2_pb(1006, "路人", 1)}},
    {"cmd": "INTERACT_WORD", "data": {"uid": 1007, "uname": "关注者", "msg_type": 2, "timestamp": 1700000002,
                                      "fans_medal": {"medal_name": "", "medal_level": 0}}},
    {"cmd": "LIKE_INFO_V3_CLICK", "data": {"uid": 1008, "uname": "点赞者", "like_text": "为主播点赞了",
                                           "fans_medal": {}}},
    {"cmd": "WATCHED_CHANGE", "data": {"num": 17000, "text_small": "1.7万", "text_large": "1.7万人看过"}},
    {"cmd": "SOMETHING_NEW_FROM_BILIBILI", "data": {}},
    {"cmd": "SUPER_CHAT_MESSAGE_DELETE", "data": {"ids": [555]}},
]


async def test_session_decodes_every_command_and_heartbeats(fake: BiliWebFake) -> None:
    src = open_source(cfg_for(fake, sessdata="good"), "room-a")
    col = Collector(src)
    await asyncio.wait_for(fake.connected.wait(), 5)

    auth = fake.auth_bodies[-1]
    assert auth == {"uid": 4242, "roomid": BiliWebFake.REAL_ROOM, "protover": 3, "platform": "web", "type": 2,
                    "key": "tok1", "buvid": "FAKE-BUVID-infoc"}
    assert all(ua == src.cfg.user_agent for ua in fake.user_agents)

    await fake.push([cmd_packet(c) for c in COMMANDS], per_frame=5)
    evs = await col.wait_for(12)
    by = [(e.kind, e.user.name if e.user else None) for e in evs]
    assert by[0] == (EventKind.COMMENT, "观众甲")

    dm = evs[0]
    assert dm.platform == "bilibili" and dm.room == "room-a" and dm.text == "主播好"
    assert dm.user is not None and dm.user.id == "1001" and dm.user.level == 21
    assert (dm.user.medal_name, dm.user.medal_level, dm.user.guard_level) == ("粉丝团", 12, 3)
    assert dm.user.face == "https://i0.hdslb.com/1001.jpg"
    assert dm.msg_id == "dm:1001:1700000000000:1"

    silver, gold = evs[1], evs[2]
    assert silver.kind == EventKind.GIFT and silver.value_milli == 0 and silver.extra["count"] == 2
    assert gold.value_milli == 300 and gold.value_cny == 0.3 and gold.extra["gift_name"] == "牛哇"
    assert gold.user is not None and gold.user.medal_level == 20 and gold.user.guard_level == 2

    v2a, v2b = evs[3], evs[4]
    assert v2a.extra == {"gift_name": "小花花", "gift_id": 31036, "count": 5, "coin_type": "gold"}
    assert v2a.value_milli == 500 and v2a.user is not None and v2a.user.name == "送礼人"
    assert v2a.user.medal_name == "粉丝团" and v2a.user.medal_level == 12 and v2a.user.guard_level == 3
    assert v2b.value_milli == 0 and v2b.extra["gift_name"] == "辣条"

    sc = evs[5]
    assert sc.kind == EventKind.SUPER_CHAT and sc.value_milli == 30_000 and sc.text == "请问这个多少钱"
    assert sc.user is not None and sc.user.name == "SC老板" and sc.msg_id == "sc:555"

    guard = evs[6]  # GUARD_BUY and USER_TOAST_MSG_V2 describe one purchase: one Event
    assert guard.kind == EventKind.GUARD and guard.value_milli == 198_000
    assert guard.user is not None and guard.user.guard_level == 3
    assert evs[7].kind == EventKind.ENTER and evs[7].user is not None and evs[7].user.face == "https://face/iw.jpg"
    assert evs[8].kind == EventKind.FOLLOW and evs[8].user is not None and evs[8].user.id == "1007"
    assert evs[9].kind == EventKind.LIKE and evs[9].text == "为主播点赞了"
    assert evs[10].kind == EventKind.SYSTEM and evs[10].extra["type"] == "watched" and evs[10].extra["num"] == 17000
    assert evs[11].extra == {"type": "sc_delete", "ids": ["555"]}

    health = src.health()
    assert health.connected and not health.silent and health.unknown_commands == 1
    assert health.decode_errors == {}

    # Heartbeats: one right after auth, then every heartbeat_s; the quirky replies are understood.
    await asyncio.sleep(0.9)
    hb = fake.conns[-1].heartbeats
    assert len(hb) >= 4
    assert hb[0] - fake.conns[-1].authed_at < 0.15
    gaps = [b - a for a, b in itertools.pairwise(hb)]
    assert min(gaps) > 0.12 and max(gaps) < 1.5  # never early; late only if the machine stalls
    assert src.popularity == 2466
    await col.close()


async def test_bad_input_is_counted_and_connection_survives(fake: BiliWebFake) -> None:
    src = open_source(cfg_for(fake, max_inflated_bytes=64 * 1024), "room-b")
    col = Collector(src)
    await asyncio.wait_for(fake.connected.wait(), 5)
    import brotli

    bomb = packet(5, brotli.compress(b"\x00" * (10 * 1024 * 1024)), ver=3)
    await fake.send_raw(bomb)
    await fake.send_raw(packet(5, b"\x8b\x00 not brotli", ver=3))
    await fake.send_raw(HDR.pack(500, 16, 0, 5, 0) + b"{}")  # pack_len past the end
    await fake.send_raw(b"\x00\x01")  # shorter than a header
    await fake.send_raw(packet(5, b'{"cmd":"DANMU_MSG","info":"nope"}'))
    await fake.send_raw(packet(5, b'{"cmd":"DANMU_MSG", broken'))
    await fake.send_raw(packet(5, b'{"cmd":"DANMU_MSG","info":[[],"\xff\xfe",[1,"x"]]}'))
    await fake.send_raw(packet(5, b"[1,2,3]"))
    await fake.send_raw(packet(5, json.dumps({"cmd": "SEND_GIFT_V2", "data": {"pb": "!!notbase64"}}).encode()))
    await fake.send_raw(packet(5, json.dumps({"cmd": "SEND_GIFT_V2", "data": {"pb": "/////w=="}}).encode()))
    await fake.send_raw(brotli_frame([cmd_packet(danmu(1, "still", "here"))]))
    evs = await col.wait_for(1)
    assert evs[0].text == "here"
    errs = src.health().decode_errors
    assert errs["too_large"] == 1 and errs["bad_compression"] == 1 and errs["truncated"] == 2
    assert errs["shape"] == 2 and errs["json"] == 1 and errs["utf8"] == 1 and errs["base64"] == 1
    assert errs["protobuf"] == 1
    assert src.health().reconnects == 0 and len(fake.conns) == 1
    await col.close()


async def test_server_drop_reconnects_and_events_flow_again(fake: BiliWebFake) -> None:
    src = open_source(cfg_for(fake), "room-c")
    col = Collector(src)
    await asyncio.wait_for(fake.connected.wait(), 5)
    assert fake.auth_bodies[-1]["uid"] == 0  # anonymous: no cookie
    await fake.push([cmd_packet(danmu(1, "a", "before"))])
    await col.wait_for(1)
    fake.connected.clear()
    await fake.drop_all()
    await asyncio.wait_for(fake.connected.wait(), 5)
    await fake.push([cmd_packet(danmu(2, "b", "after"))])
    evs = await col.wait_for(2)
    assert [e.text for e in evs] == ["before", "after"]
    assert src.health().reconnects >= 1 and src.health().connected
    assert len(fake.conns) == 2
    await col.close()


async def test_auth_failure_fetches_a_fresh_token(fake: BiliWebFake) -> None:
    fake.reject_tokens.add("tok1")
    src = open_source(cfg_for(fake), "room-d")
    changes: list[Any] = []
    src.add_health_listener(changes.append)
    col = Collector(src)
    await asyncio.wait_for(fake.connected.wait(), 5)
    assert fake.tokens_issued == ["tok1", "tok2"]
    assert [a["key"] for a in fake.auth_bodies] == ["tok1", "tok2"]
    assert any("auth rejected" in c.last_warning for c in changes)
    # Recovered: health no longer shows the old failure.
    await until(lambda: src.health().connected)
    assert src.health().last_warning == "" and changes[-1].last_warning == ""
    await fake.push([cmd_packet(danmu(3, "c", "ok now"))])
    assert (await col.wait_for(1))[0].text == "ok now"
    await col.close()


async def test_zlib_protover_2(fake: BiliWebFake) -> None:
    fake.compress = "zlib"
    src = open_source(cfg_for(fake, protover=2), "room-e")
    col = Collector(src)
    await asyncio.wait_for(fake.connected.wait(), 5)
    assert fake.auth_bodies[-1]["protover"] == 2
    await fake.push([cmd_packet(danmu(i, "z", f"m{i}")) for i in range(7)], per_frame=4)
    evs = await col.wait_for(7)
    assert [e.text for e in evs] == [f"m{i}" for i in range(7)]
    await col.close()


async def test_wss_with_ca_file(tmp_path: Any) -> None:
    tls = make_tls(tmp_path)
    fake = BiliWebFake()
    await fake.start(ssl_context=tls.server_ctx)
    try:
        src = open_source(cfg_for(fake, scheme="wss", ca_file=str(tls.ca_file)), "room-f")
        col = Collector(src)
        await asyncio.wait_for(fake.connected.wait(), 5)
        await fake.push([cmd_packet(danmu(9, "tls", "secure"))])
        assert (await col.wait_for(1))[0].text == "secure"
        await col.close()

        # Without the CA the handshake must fail (and keep retrying, never raising).
        fake.connected.clear()
        src2 = open_source(cfg_for(fake, scheme="wss"), "room-f2")
        col2 = Collector(src2)
        await until(lambda: src2.health().reconnects >= 2)
        assert not fake.connected.is_set() and not src2.health().connected
        assert "SSL" in src2.health().last_warning or "certificate" in src2.health().last_warning.lower()
        await col2.close()
    finally:
        await fake.stop()


async def test_connected_but_silent_warns_and_reconnects(fake: BiliWebFake) -> None:
    src = open_source(cfg_for(fake, silent_after_s=0.4), "room-g")
    changes: list[Any] = []
    src.add_health_listener(changes.append)
    col = Collector(src)
    await asyncio.wait_for(fake.connected.wait(), 5)
    await until(lambda: any(c.silent and "silent" in c.last_warning for c in changes), timeout=5)
    h = next(c for c in changes if "silent" in c.last_warning)
    assert "not logged in" in h.last_warning and "quiet" not in h.last_warning
    await until(lambda: len(fake.conns) >= 2, timeout=5)
    assert any(c.silent for c in changes)
    # A message clears the flag. (Under load the new connection may itself go silent before the push lands;
    # push again to whichever connection is current until one gets through.)
    for _ in range(50):
        await until(lambda: src.health().connected)
        await fake.push([cmd_packet(danmu(1, "a", "back"))])
        await asyncio.sleep(0.1)
        if col.events:
            break
    assert col.events and col.events[0].text == "back"
    assert not src.health().silent
    await col.close()


async def test_quiet_room_is_not_blamed_on_the_login(fake: BiliWebFake) -> None:
    fake.popularity = 1  # the server says nobody is watching
    src = open_source(cfg_for(fake, silent_after_s=0.4), "room-q")
    changes: list[Any] = []
    src.add_health_listener(changes.append)
    col = Collector(src)
    await until(lambda: any("silent" in c.last_warning for c in changes), timeout=5)
    warning = next(c.last_warning for c in changes if "silent" in c.last_warning)
    assert "quiet" in warning and "logged in" not in warning and "sessdata" not in warning, warning
    await col.close()


async def test_no_auth_reply_times_out(fake: BiliWebFake) -> None:
    fake.answer_auth = False
    src = open_source(cfg_for(fake, auth_timeout_s=0.3), "room-h")
    col = Collector(src)
    await until(lambda: src.health().reconnects >= 1)
    assert "no auth reply" in src.health().last_warning
    await col.close()


async def test_wbi_rejection_then_fresh_keys_and_host_rotation(fake: BiliWebFake) -> None:
    import socket

    with socket.socket() as s:  # a loopback port with nobody listening: the first host is dead
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    fake.extra_hosts = [{"host": "127.0.0.1", "port": 2243, "ws_port": dead, "wss_port": dead}]
    fake.wbi_fail_next = 1
    src = open_source(cfg_for(fake), "room-i")
    col = Collector(src)
    await asyncio.wait_for(fake.connected.wait(), 10)
    # -352 → fallback host without a key → auth rejected → keys fetched again → token → dead host → live host.
    assert fake.wbi_failures == 1 and fake.nav_calls >= 2
    assert [("key" in a) for a in fake.auth_bodies] == [False, True]
    assert fake.auth_bodies[-1]["key"] == "tok1"
    assert src.health().reconnects >= 2
    await fake.push([cmd_packet(danmu(5, "r", "rotated"))])
    assert (await col.wait_for(1))[0].text == "rotated"
    await col.close()


async def test_bombs_decompress_off_the_loop(fake: BiliWebFake, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    import brotli

    from danmaku.bilibili.packet import PacketDecoder

    decoded_on: list[int] = []
    whole = PacketDecoder.decode_collecting

    def recording(self, data):  # the full decode of a frame too big to inflate on the loop
        decoded_on.append(threading.get_ident())
        return whole(self, data)

    monkeypatch.setattr(PacketDecoder, "decode_collecting", recording)

    cap = 32 * 1024 * 1024
    bomb = packet(5, brotli.compress(b"\x00" * (2 * cap)), ver=3)
    # What one bomb costs whoever decodes it, measured here (the machine may be slow or busy).
    t0 = time.perf_counter()
    PacketDecoder(lambda kind, detail: None, cap).decode(bomb)
    one_bomb = time.perf_counter() - t0

    src = open_source(cfg_for(fake, max_inflated_bytes=cap), "room-bomb")
    col = Collector(src)
    await asyncio.wait_for(fake.connected.wait(), 5)
    with LoopLag() as lag:
        n = 6
        for _ in range(n):
            await fake.send_raw(bomb)
        await fake.push([cmd_packet(danmu(1, "a", "after the bombs"))])
        await col.wait_for(1, timeout=30)
    assert src.health().decode_errors == {"too_large": n}
    # Every bomb was inflated on a worker thread, never on the loop's; decoded on the loop, the bombs that
    # arrive back to back would freeze it for about n × one_bomb (a busy machine stretches both alike).
    assert len(decoded_on) == n and threading.get_ident() not in decoded_on
    assert lag.worst < n * one_bomb / 2, (lag.worst, one_bomb)
    await col.close()


async def test_ws_connect_failure_reads_cleanly(fake: BiliWebFake) -> None:
    import socket

    with socket.socket() as s:  # nobody listens here
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    cfg = cfg_for(fake, fallback_ws_port=dead)
    fake.wbi_fail_next = 100  # no host list: the (dead) fallback host is all there is
    src = open_source(cfg, "room-ws")
    col = Collector(src)
    await until(lambda: "cannot connect" in src.health().last_warning)
    warning = src.health().last_warning
    assert f"127.0.0.1:{dead}" in warning and "SSLContext" not in warning and "ssl:" not in warning, warning
    await col.close()


async def test_a_gift_seen_twice_counts_once(fake: BiliWebFake) -> None:
    src = open_source(cfg_for(fake), "room-gift")
    col = Collector(src)
    await asyncio.wait_for(fake.connected.wait(), 5)
    gift = {"cmd": "SEND_GIFT", "data": {"giftName": "牛哇", "giftId": 31039, "num": 1, "uid": 9, "uname": "甲",
                                         "price": 100, "total_coin": 100, "coin_type": "gold", "tid": "T-1"}}
    await fake.push([cmd_packet(gift)])
    fake.connected.clear()
    await fake.drop_all()
    await asyncio.wait_for(fake.connected.wait(), 5)
    # The same gift again on the new connection (same tid), then a different one.
    await fake.push([cmd_packet(gift), cmd_packet({**gift, "data": {**gift["data"], "tid": "T-2"}})])
    await col.wait_for(2)
    await asyncio.sleep(0.2)
    assert [(e.msg_id, e.value_milli) for e in col.events] == [("gift:T-1", 100), ("gift:T-2", 100)]
    await col.close()
