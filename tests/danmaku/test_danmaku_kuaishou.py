"""Kuaishou web live against a loopback fake: cookie + stream id + websocketinfo bootstrap, enter room and its ack,
heartbeats at the ack's interval, every feed kind with gifts valued from the catalogue (reloaded when edited),
combos counted once, hostile frames, a silent feed, a refused token, and the pluggable signer."""

from __future__ import annotations

import asyncio
import gzip
import itertools
import logging
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from dm_fakes import Collector, until
from fake_kuaishou import (
    PRINCIPAL,
    STREAM_ID,
    KuaishouFake,
    combo_comment,
    comment,
    feed_push,
    gift,
    ks_user,
    like,
    notice,
    share,
    socket_message,
)

from danmaku import pb
from danmaku.config import KuaishouWebSource
from danmaku.event import EventKind, Money
from danmaku.sources import open_source


@pytest.fixture
async def fake() -> AsyncIterator[KuaishouFake]:
    f = KuaishouFake()
    await f.start()
    yield f
    await f.stop()


def cfg_for(fake: KuaishouFake, **kw: Any) -> KuaishouWebSource:
    base: dict[str, Any] = {"type": "kuaishou_web", "principal_id": PRINCIPAL, "live_base": fake.base,
                            "gifts": {9: {"name": "小心心", "coins": 1}, 12: {"name": "棒棒糖", "coins": 10}},
                            "reconnect_delay_s": 0.05, "reconnect_max_delay_s": 0.2, "silent_after_s": None}
    base.update(kw)
    return KuaishouWebSource.model_validate(base)


async def test_bootstrap_enter_heartbeats_and_every_kind(fake: KuaishouFake) -> None:
    src = open_source(cfg_for(fake), "ks-a")
    col = Collector(src)
    conn = await fake.wait_conns(1)
    assert fake.home_visits == 1 and "did=web_fake" in fake.cookies_seen[-1]
    assert conn.enter[1] == b"TOKEN-1" and conn.enter[2] == STREAM_ID.encode()
    assert re.fullmatch(rb"[A-Za-z0-9_-]{16}_\d{13}", conn.enter[7])  # pageId as the web client makes it
    await until(lambda: src.health().connected)
    u1, u2, u3 = ks_user("u1", "小明"), ks_user("u2", "土豪"), ks_user("u3", "路人")
    await fake.push(feed_push(
        comments=[comment("c1", u1, "主播好，这个多少钱？", wealth=12, fans=5)],
        likes=[like("l1", u3)],
        gifts=[gift("g1", u2, 9, "mk-a", batch=1, combo=1), gift("g2", u2, 9, "mk-a", combo=2),
               gift("g3", u2, 9, "mk-a", combo=4), gift("g4", u2, 9, "mk-a", combo=4),  # a skipped step, a repeat
               gift("g5", u2, 12, "mk-b", batch=2, combo=1), gift("g6", u3, 555, "mk-c", batch=2, combo=1)],
        notices=[notice("n1", "欢迎来到直播间")], shares=[share("s1", u3)], combos=[combo_comment("k1", "666", 8)],
        watching="1.2万", like_count="240"))
    await fake.push(pb.encode([(1, [(1, u1)]), (2, "3"), (3, 2)]), payload_type=340)  # watching list
    await fake.push(b"", payload_type=301, compress=False)
    await fake.push(b"", payload_type=302, compress=False)
    await fake.push(b"\x08\x01", payload_type=9999, compress=False)
    evs = await col.wait_for(14)
    c, cc, lk, g1, g2, g3, g5, g6, nt, sh, online, watching, paused, resumed = evs
    assert (c.kind, c.text, c.platform, c.room, c.msg_id) == (EventKind.COMMENT, "主播好，这个多少钱？", "kuaishou", "ks-a",
                                                             "ks:c1")
    assert c.user is not None and (c.user.id, c.user.name, c.user.level, c.user.medal_level) == ("u1", "小明", 12, 5)
    assert lk.kind == EventKind.LIKE and lk.extra == {"count": 1}
    assert [g.kind for g in (g1, g2, g3)] == [EventKind.GIFT] * 3
    assert [g.extra["count"] for g in (g1, g2, g3)] == [1, 1, 2]  # combo 1 → 2 → 4: every gift once
    assert g3.money == Money("kuaishou_coin", 2) and g3.value_milli == 200  # 2 快币 = ¥0.2
    assert g5.money == Money("kuaishou_coin", 20) and g5.value_milli == 2000 and g5.extra["gift_name"] == "棒棒糖"
    assert g6.money == Money("kuaishou_gift:555", 2) and g6.unrated and g6.value_milli == 10_000
    assert (nt.kind, nt.text, nt.extra) == (EventKind.SYSTEM, "欢迎来到直播间", {"type": "notice"})
    assert sh.extra == {"type": "share", "to": 1}
    assert (cc.text, cc.extra) == ("666", {"type": "combo_comment", "count": 8})
    assert online.extra == {"type": "online", "display": "1.2万", "likes": "240"}
    assert watching.extra == {"type": "online", "display": "3", "listed": 1}
    assert paused.extra == {"type": "paused"} and resumed.extra == {"type": "resumed"}
    assert src.health().unknown_commands == 1 and src._normalizer.late_combo_frames == 1  # type: ignore[attr-defined]

    await asyncio.sleep(0.7)
    beats = [t for t, _ in conn.heartbeats]
    assert len(beats) >= 3
    gaps = [b - a for a, b in itertools.pairwise(beats)]
    assert min(gaps) > 0.15 and max(gaps) < 1.5  # the ack's 200 ms, not the 20 s default
    await col.close()


async def test_gift_catalogue_file_is_reloaded_when_edited(fake: KuaishouFake, tmp_path: Path,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    gifts = tmp_path / "gifts.yaml"
    gifts.write_text("555: {name: 火箭, coins: 5}\n", encoding="utf-8")
    src = open_source(cfg_for(fake, gifts_file=str(gifts), gifts_check_s=0.05), "ks-b")
    col = Collector(src)
    await fake.wait_conns(1)
    u = ks_user("u9", "大哥")
    await fake.push(feed_push(gifts=[gift("g1", u, 555, "m1")]))
    ev = (await col.wait_for(1))[0]
    assert ev.money == Money("kuaishou_coin", 5) and ev.extra["gift_name"] == "火箭"
    gifts.write_text("555: {name: 火箭, coins: 50}\n777: {name: 跑车, coins: 100}\n", encoding="utf-8")
    os.utime(gifts, ns=(1, os.stat(gifts).st_mtime_ns + 10**9))
    await asyncio.sleep(0.1)
    await fake.push(feed_push(gifts=[gift("g2", u, 555, "m2"), gift("g3", u, 777, "m3")]))
    evs = await col.wait_for(3)
    assert [e.value_milli for e in evs[1:]] == [5000, 10_000]
    gifts.write_text("555: {name: 火箭, coins: lots}\n", encoding="utf-8")  # a broken edit
    os.utime(gifts, ns=(1, os.stat(gifts).st_mtime_ns + 2 * 10**9))
    await asyncio.sleep(0.1)
    with caplog.at_level(logging.WARNING, logger="danmaku.kuaishou"):
        await fake.push(feed_push(gifts=[gift("g4", u, 555, "m4")]))
        evs = await col.wait_for(4)
    assert evs[3].value_milli == 5000  # the last good catalogue
    assert any("555: coins" in r.getMessage() and "keeping the last good one" in r.getMessage()
               for r in caplog.records)
    await col.close()


def test_a_broken_catalogue_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "g.yaml"
    bad.write_text("9: {name: x}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"g\.yaml: key 9: coins: Field required"):
        KuaishouWebSource.model_validate({"type": "kuaishou_web", "principal_id": "a", "gifts_file": str(bad)})
    bad.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="expected a mapping"):
        KuaishouWebSource.model_validate({"type": "kuaishou_web", "principal_id": "a", "gifts_file": str(bad)})
    with pytest.raises(ValueError, match="does not exist"):
        KuaishouWebSource.model_validate({"type": "kuaishou_web", "principal_id": "a",
                                          "gifts_file": str(tmp_path / "none.yaml")})


async def test_hostile_frames_are_counted_and_survived(fake: KuaishouFake) -> None:
    src = open_source(cfg_for(fake, max_inflated_bytes=1024 * 1024), "ks-c")
    col = Collector(src)
    await fake.wait_conns(1)
    await until(lambda: src.health().connected)
    await fake.send_raw(b"\xff\xff\xff\xff")  # not protobuf
    await fake.send_raw(pb.encode([(2, 1), (3, b"x")]))  # no payload type
    await fake.send_raw(socket_message(310, b"\x1f\x8bnot gzip at all", 2))
    await fake.send_raw(socket_message(310, gzip.compress(b"\x00" * (4 * 1024 * 1024)), 2))  # a bomb
    await fake.send_raw(socket_message(310, b"ciphertext", 3))  # AES
    await fake.send_raw(socket_message(310, b"\x2a\x05\x0a\x03", 1))  # a comment feed cut short
    await fake.send_raw("a text frame")
    await fake.push(feed_push(comments=[comment("ok", ks_user("u1", "甲"), "还在吗")]))
    evs = await col.wait_for(1)
    assert [e.text for e in evs] == ["还在吗"]
    errors = src.health().decode_errors
    assert errors == {"protobuf": 2, "shape": 1, "bad_compression": 1, "too_large": 1, "encrypted": 1,
                      "text_frame": 1}, errors
    assert src.health().connected and src.health().reconnects == 0
    await col.close()


async def test_silent_feed_is_detected_and_recovered(fake: KuaishouFake) -> None:
    src = open_source(cfg_for(fake, silent_after_s=1.0), "ks-d")
    seen: list[Any] = []
    src.add_health_listener(seen.append)
    col = Collector(src)
    await fake.wait_conns(2, timeout=5)  # entered, heard nothing but heartbeat acks: reconnected
    assert any(h.silent for h in seen) and any("connected but silent" in h.last_warning and "cookie" in h.last_warning
                                               for h in seen)
    await until(lambda: src.health().connected)
    assert src.health().silent  # until the feed speaks again
    await fake.push(feed_push(comments=[comment("b1", ks_user("u1", "甲"), "回来了")]))
    assert (await col.wait_for(1))[0].text == "回来了"
    assert src.health().healthy and not src.health().silent
    await col.close()


async def test_a_refused_token_or_missing_ack_bootstraps_again(fake: KuaishouFake) -> None:
    fake.answer_enter = False
    src = open_source(cfg_for(fake, enter_timeout_s=0.3), "ks-e")
    seen: list[Any] = []
    src.add_health_listener(seen.append)
    col = Collector(src)
    await fake.wait_conns(1)
    await until(lambda: len(fake.info_calls) >= 2, timeout=5)  # no ack: the token is fetched again
    assert any("no enter-room ack within 0.3 s" in h.last_warning for h in seen)
    fake.answer_enter = True
    await until(lambda: src.health().connected, timeout=5)
    calls = len(fake.info_calls)
    fake.revoked.update(fake.tokens)  # the server now answers the old token with SC_ERROR
    await fake.conns[-1].ws.close()
    await until(lambda: any("code 401" in h.last_warning for h in seen), timeout=5)
    await until(lambda: src.health().connected and len(fake.info_calls) > calls, timeout=5)
    await fake.push(feed_push(comments=[comment("z1", ks_user("u1", "甲"), "进来了")]))
    assert (await col.wait_for(1))[0].text == "进来了"
    await col.close()


async def test_signer_and_cookie(fake: KuaishouFake) -> None:
    fake.require_signature = True
    src = open_source(cfg_for(fake, signer={"type": "http", "url": fake.base + "/sign"},
                              cookie="did=web_operator; kuaishou.live.web_st=ChRrdWFp"), "ks-f")
    col = Collector(src)
    await fake.wait_conns(1)
    assert fake.home_visits == 0  # the operator's cookie, not the anonymous home-page one
    assert "kuaishou.live.web_st=ChRrdWFp" in fake.cookies_seen[-1]
    q = fake.info_calls[-1]
    assert q["__NS_sig3"].startswith("SIG-") and fake.sign_requests[-1]["url"].endswith(f"liveStreamId={STREAM_ID}")
    await col.close()

    fake.require_signature = True
    unsigned = open_source(cfg_for(fake), "ks-g")
    col = Collector(unsigned)
    await until(lambda: "result 400002" in unsigned.health().last_warning, timeout=5)
    await col.close()
