"""YouTube live chat against a loopback Data API: every message kind with its exact money, page tokens and
pollingIntervalMillis, the quota budget (paced, quotaExceeded waited out, not retried hot), rate limits, bad
answers, a chat that ends and comes back, silence, and OAuth with refresh."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from dm_fakes import Collector, until
from fake_youtube import (
    API_KEY,
    CHAT_ID,
    VIDEO_ID,
    YouTubeFake,
    banned,
    chat_ended,
    deleted,
    gift_received,
    gifting,
    item,
    milestone,
    new_member,
    super_chat,
    super_sticker,
    text,
)

from danmaku import metrics
from danmaku.config import YouTubeSource
from danmaku.event import EventKind, Money
from danmaku.money import MoneyConfig
from danmaku.sources import open_source
from danmaku.youtube.quota import PACIFIC, QuotaBudget, next_reset


@pytest.fixture
async def fake() -> AsyncIterator[YouTubeFake]:
    f = YouTubeFake()
    await f.start()
    yield f
    await f.stop()


def cfg_for(fake: YouTubeFake, **kw: Any) -> YouTubeSource:
    base: dict[str, Any] = {"type": "youtube", "video_id": VIDEO_ID, "api_key": API_KEY, "api_base": fake.api_base,
                            "token_url": fake.base + "/token", "reconnect_delay_s": 0.05,
                            "reconnect_max_delay_s": 0.2, "silent_after_s": None,
                            "quota_per_day": 10_000_000}  # pacing is its own test: here the server's interval rules
    base.update(kw)
    cfg = YouTubeSource.model_validate(base)
    cfg.in_room(MoneyConfig(rates={"USD": "7.2"}, unrated_value="50"))
    return cfg


async def test_every_kind_with_its_exact_money(fake: YouTubeFake) -> None:
    fake.add(text("old1", "Early", "said before we came", at=time.time() - 600))
    fake.add(text("t1", "Alice", "what's the price?", member=True),
             super_chat("sc1", "Bob", 5_000_000, "USD", "love the stream"),
             super_sticker("ss1", "Chie", 500_000_000, "JPY", "cat waving"),
             new_member("nm1", "Dan"), milestone("ms1", "Eve", 6, "half a year!"),
             gifting("gm1", "Finn", 5), gift_received("gr1", "Gus", "UCgm1", "gm1"),
             deleted("del1", "sc1"), banned("ban1", "troll", 300),
             item("poll1", "pollEvent", None, {}, None, "Poll started"),
             item("x1", "brandNewEvent", None, {}, None), item("tomb1", "tombstone", None, {}, None))
    src = open_source(cfg_for(fake), "yt-a")
    col = Collector(src)
    evs = await col.wait_for(10)
    assert [e.msg_id for e in evs] == ["yt:t1", "yt:sc1", "yt:ss1", "yt:nm1", "yt:ms1", "yt:gm1", "yt:gr1",
                                        "yt:del1", "yt:ban1", "yt:poll1"]  # the old message was history
    t, sc, ss, nm, ms, gm, gr, de, ba, po = evs
    assert (t.kind, t.text, t.platform, t.room) == (EventKind.COMMENT, "what's the price?", "youtube", "yt-a")
    assert t.user is not None and (t.user.id, t.user.name, t.user.medal_name) == ("UCt1", "Alice", "member")
    assert t.extra == {"roles": ["member"]}
    assert sc.kind == EventKind.SUPER_CHAT and sc.text == "love the stream"
    assert sc.money == Money("USD", 5_000_000, 6) and sc.value_milli == 36_000 and not sc.unrated
    assert sc.extra["amount_display"] == "USD 5.00" and sc.extra["sc_id"] == "sc1"
    assert ss.kind == EventKind.SUPER_CHAT and ss.text == "" and ss.extra["sticker"] == "cat waving"
    assert ss.money == Money("JPY", 500_000_000, 6) and ss.unrated and ss.value_milli == 50_000  # no JPY rate
    assert nm.kind == EventKind.GUARD and nm.money == Money("youtube_membership", 1) and nm.value_milli == 35_928
    assert ms.kind == EventKind.GUARD and ms.text == "half a year!" and ms.extra["months"] == 6
    assert gm.kind == EventKind.GUARD and gm.money == Money("youtube_membership", 5) and gm.extra["count"] == 5
    assert gr.kind == EventKind.SYSTEM and gr.money is None and gr.extra["gift_id"] == "gm1"
    assert de.extra == {"type": "sc_delete", "ids": ["sc1"]}  # the deleted super chat is withdrawn
    assert ba.extra["type"] == "user_ban" and ba.extra["duration_s"] == 300
    assert po.extra == {"type": "pollEvent"}
    assert src.health().unknown_commands == 1

    fake.add(text("t2", "Alice", "second page"))
    evs = await col.wait_for(11)
    assert evs[-1].text == "second page" and len({e.msg_id for e in evs}) == 11
    calls = fake.list_calls()
    assert "pageToken" not in calls[0].query and calls[1].query["pageToken"] == "13"
    assert calls[0].query["key"] == API_KEY and calls[0].query["liveChatId"] == CHAT_ID
    assert calls[0].query["part"] == "snippet,authorDetails" and calls[0].query["maxResults"] == "2000"
    gaps = [b.at - a.at for a, b in itertools.pairwise(calls)]
    assert min(gaps) >= 0.09  # pollingIntervalMillis (100 ms) honoured
    assert fake.calls[0].path.endswith("/videos")  # found the chat first (1 unit)
    await col.close()


async def test_quota_exceeded_is_reported_and_waited_out(fake: YouTubeFake) -> None:
    fake.add(text("t1", "A", "before the quota ran out"))
    fake.fail_next = [(403, "quotaExceeded")]
    src = open_source(cfg_for(fake), "yt-b")
    reset = {"at": 0.0}
    src._next_reset = lambda now: reset["at"]  # type: ignore[attr-defined]
    reset["at"] = time.time() + 0.8
    seen: list[Any] = []
    src.add_health_listener(seen.append)
    col = Collector(src)
    await until(lambda: src.quota_waits == 1)  # type: ignore[attr-defined]
    h = src.health()
    assert not h.connected and "quota exhausted" in h.last_warning and "midnight Pacific" in h.last_warning
    calls_at_error = len(fake.list_calls())
    assert metrics.SOURCE_RATE_LIMITED.labels("yt-b", "youtube", "quotaExceeded")._value.get() == 1
    assert metrics.SOURCE_QUOTA_LEFT.labels("yt-b", "youtube")._value.get() == 0
    assert calls_at_error == 1 and reset["at"] - time.time() > 0.3
    evs = await col.wait_for(1, timeout=5)
    assert evs[0].text == "before the quota ran out"
    first_after = fake.list_calls()[calls_at_error]
    assert first_after.at >= fake.list_calls()[0].at + 0.7  # not retried hot: it waited for the reset
    await until(lambda: src.health().connected and not src.health().last_warning)
    assert src.budget.left(time.time()) > 9_000_000  # a new quota day  # type: ignore[attr-defined]
    await col.close()


async def test_rate_limit_backs_off_and_recovers(fake: YouTubeFake) -> None:
    fake.add(text("t1", "A", "hello"))
    fake.fail_next = [(403, "rateLimitExceeded"), (403, "rateLimitExceeded")]
    src = open_source(cfg_for(fake, rate_limit_delay_s=0.2), "yt-c")
    seen: list[Any] = []
    src.add_health_listener(seen.append)
    col = Collector(src)
    await col.wait_for(1, timeout=5)
    calls = fake.list_calls()
    assert calls[1].at - calls[0].at >= 0.19 and calls[2].at - calls[1].at >= 0.39  # 0.2 s, then doubled
    assert any("rate-limits" in h.last_warning for h in seen)
    assert src.rate_limited == 2  # type: ignore[attr-defined]
    await until(lambda: not src.health().last_warning)
    await col.close()


async def test_bad_answers_are_counted_and_survived(fake: YouTubeFake) -> None:
    fake.garbage_next = 1
    bad_money = super_chat("b1", "X", 1, "USD", "x")
    bad_money["snippet"]["superChatDetails"]["amountMicros"] = "lots"
    bad_currency = super_chat("b2", "X", 1, "US", "x")
    no_type = text("b3", "X", "x")
    del no_type["snippet"]["type"]
    fake.add(bad_money, bad_currency, no_type, "not an item", text("ok", "Y", "fine"))  # type: ignore[arg-type]
    src = open_source(cfg_for(fake, reconnect_delay_s=0.05), "yt-d")
    col = Collector(src)
    evs = await col.wait_for(1, timeout=5)
    assert [e.text for e in evs] == ["fine"]
    assert src.health().decode_errors == {"json": 1, "shape": 4}
    assert src.health().reconnects == 0
    await col.close()


async def test_a_chat_that_ends_is_looked_for_again(fake: YouTubeFake) -> None:
    fake.add(text("t1", "A", "last words"), chat_ended("end1"))
    fake.offline = True
    src = open_source(cfg_for(fake, offline_recheck_s=0.3), "yt-e")
    col = Collector(src)
    evs = await col.wait_for(2)
    assert evs[1].kind == EventKind.SYSTEM and evs[1].extra == {"type": "ended"}
    fake.active_chat, fake.offline = None, False
    await until(lambda: "looking again" in src.health().last_warning)
    assert not src.health().connected
    fake.log.clear()
    fake.active_chat = "NEWCHAT123"
    fake.add(text("n1", "B", "new stream"))
    evs = await col.wait_for(3, timeout=5)
    assert evs[2].text == "new stream" and src.chat_id == "NEWCHAT123"  # type: ignore[attr-defined]
    await until(lambda: src.health().connected)
    await col.close()


async def test_silence_is_detected_and_recovered(fake: YouTubeFake) -> None:
    src = open_source(cfg_for(fake, silent_after_s=0.5), "yt-f")
    seen: list[Any] = []
    src.add_health_listener(seen.append)
    col = Collector(src)
    await until(lambda: any(h.silent for h in seen), timeout=5)
    # the source says it is silent first, then why (the warning comes with the reconnect that follows)
    await until(lambda: any("connected but silent" in h.last_warning for h in seen), timeout=5)
    fake.add(text("s1", "A", "anyone here?"))
    evs = await col.wait_for(1, timeout=5)
    assert evs[0].text == "anyone here?"
    await until(lambda: src.health().healthy)
    await col.close()


async def test_oauth_mine_refreshes_and_a_revoked_grant_is_reported(fake: YouTubeFake) -> None:
    fake.add(text("o1", "A", "via oauth"))
    oauth = {"api_key": None, "video_id": None, "mine": True, "client_id": YouTubeFake.CLIENT_ID,
             "client_secret": YouTubeFake.CLIENT_SECRET, "refresh_token": YouTubeFake.REFRESH}
    src = open_source(cfg_for(fake, **oauth), "yt-g")
    col = Collector(src)
    await col.wait_for(1)
    assert fake.calls[0].path.endswith("/liveBroadcasts") and fake.calls[0].auth == "Bearer ya29.access-1"
    fake.tokens.clear()  # revoked early: the next call gets 401, one refresh, the call again
    fake.add(text("o2", "A", "after refresh"))
    evs = await col.wait_for(2, timeout=5)
    assert evs[1].text == "after refresh" and src.token_refreshes == 2  # type: ignore[attr-defined]
    await col.close()

    bad = open_source(cfg_for(fake, **{**oauth, "refresh_token": "1//revoked"}), "yt-h")
    col = Collector(bad)
    await until(lambda: "refused" in bad.health().last_warning)
    assert not bad.health().connected
    await col.close()


def _pacific(y: int, m: int, d: int, hh: int, mm: int) -> float:
    return dt.datetime(y, m, d, hh, mm, tzinfo=PACIFIC).timestamp()


def test_budget_paces_the_stream_day() -> None:
    now = _pacific(2025, 1, 15, 0, 0) + 10  # just after the reset
    full_day = QuotaBudget(10_000, 24)
    assert next_reset(now) == _pacific(2025, 1, 16, 0, 0)
    assert full_day.interval(5, 3.0, now) == pytest.approx((86_400 - 10) / 1998)  # ≈ 43 s, not 3 s
    eight = QuotaBudget(10_000, 8)
    assert eight.interval(5, 3.0, now) == pytest.approx(8 * 3600 / 1998)  # ≈ 14.4 s
    assert eight.interval(5, 30.0, now) == 30.0  # the server's interval is a floor
    eight.active_s = 9 * 3600  # streamed past its day: what is left is paced to the reset
    assert eight.interval(5, 3.0, now) == pytest.approx((86_400 - 10) / 1998)
    spent = QuotaBudget(100, 24)
    spent.spend(95, now)
    assert spent.interval(5, 3.0, now) == pytest.approx(86_400 - 10)  # nothing left: wait for the reset
    spent.spend(0, now + 86_400)  # the next Pacific day starts from 0
    assert spent.left(now + 86_400) == 100


def test_budget_survives_a_restart(tmp_path: Path) -> None:
    state = tmp_path / "yt.json"
    b = QuotaBudget(10_000, 24, state)
    b.spend(1234, time.time())
    b.save()
    again = QuotaBudget(10_000, 24, state)
    again.load()
    assert again.left(time.time()) == 10_000 - 1234
    state.write_text(json.dumps({"day": "1999-01-01", "spent": 9999}))
    old = QuotaBudget(10_000, 24, state)
    old.load()
    assert old.left(time.time()) == 10_000
    state.write_text("{broken")
    QuotaBudget(10_000, 24, state).load()  # a warning, not a crash


def test_config_checks() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        YouTubeSource.model_validate({"type": "youtube", "api_key": "k"})
    with pytest.raises(ValueError, match="api_key"):
        YouTubeSource.model_validate({"type": "youtube", "video_id": VIDEO_ID})
    with pytest.raises(ValueError, match="OAuth"):
        YouTubeSource.model_validate({"type": "youtube", "mine": True, "api_key": "k"})
    with pytest.raises(ValueError, match="video_id"):
        YouTubeSource.model_validate({"type": "youtube", "video_id": "short", "api_key": "k"})
