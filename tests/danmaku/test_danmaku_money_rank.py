"""Paid events from different platforms and currencies rank by their converted value in the director's triage:
a $10 Super Chat over a 500-bit cheer ($5) over a Super Chat in a currency the room has no rate for."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from dm_fakes import Collector, until
from fake_pair import twitch_and_youtube
from fake_twitch import TwitchFake, privmsg
from fake_youtube import API_KEY, VIDEO_ID, YouTubeFake, super_chat

from broadcaster.brain.config import ModerationConfig
from broadcaster.brain.moderation import moderator_from_config
from broadcaster.director.config import DirectorConfig
from broadcaster.director.thanks import Thanks
from broadcaster.director.triage import Candidate, RateLimiter, SafeNames, Thank, triage
from broadcaster.lines import LineKind
from common.bounded import BoundedDict
from danmaku.config import TwitchSource, YouTubeSource
from danmaku.event import Event, EventKind, Money, User
from danmaku.money import MoneyConfig, Rates
from danmaku.sources import open_source

ROOM_MONEY = MoneyConfig(rates={"USD": "7.2"})


@pytest.fixture
async def fakes() -> AsyncIterator[tuple[TwitchFake, YouTubeFake]]:
    async with twitch_and_youtube() as pair:
        yield pair


def _triage(events: list[Event]) -> list[Candidate | Any]:
    cfg = DirectorConfig().triage
    moderator = moderator_from_config(ModerationConfig())
    seen: BoundedDict[str, None] = BoundedDict(100)
    rates = RateLimiter(cfg.user_burst, cfg.user_rate_per_min, cfg.max_tracked_users)
    names = SafeNames(moderator)
    return [triage(e, 1000.0, cfg, moderator, seen, rates, names, lambda p, k, n: True) for e in events]


async def test_a_usd_super_chat_and_a_500_bit_cheer_rank_by_converted_value(
        fakes: tuple[TwitchFake, YouTubeFake]) -> None:
    tw, yt = fakes
    yt.add(super_chat("sc-usd", "Bob", 10_000_000, "USD", "does it ship to Canada?"),
           super_chat("sc-jpy", "Ken", 500_000_000, "JPY", "is there a warranty?"))
    common = {"reconnect_delay_s": 0.05, "silent_after_s": None}
    ycfg = YouTubeSource.model_validate({"type": "youtube", "video_id": VIDEO_ID, "api_key": API_KEY,
                                         "api_base": yt.api_base, "quota_per_day": 10_000_000, **common})
    tcfg = TwitchSource.model_validate({"type": "twitch", "channel": "somestreamer", "url": tw.ws_url, **common})
    for c in (ycfg, tcfg):
        c.in_room(ROOM_MONEY)
    ysrc, tsrc = open_source(ycfg, "en"), open_source(tcfg, "en")
    ycol, tcol = Collector(ysrc), Collector(tsrc)
    await tw.wait_conns(1)
    await until(lambda: tsrc.health().connected)
    await tw.send(privmsg("Cheer500 what voltage is it?", login="rich", name="Rich", mid="c1", bits=500))
    usd, jpy = await ycol.wait_for(2)
    (cheer,) = await tcol.wait_for(1)
    assert (usd.value_milli, cheer.value_milli, jpy.value_milli, jpy.unrated) == (72_000, 36_000, 10_000, True)
    lines = _triage([jpy, cheer, usd])
    assert all(isinstance(x, Candidate) and x.kind is LineKind.SUPER_CHAT for x in lines)
    by_priority = sorted(zip(lines, ("jpy", "cheer", "usd"), strict=True), key=lambda p: -p[0].priority)
    assert [name for _, name in by_priority] == ["usd", "cheer", "jpy"]
    assert [round(x.priority, 3) for x, _ in by_priority] == [114.4, 107.2, 102.0]  # 100 + 0.2 per yuan
    await ycol.close()
    await tcol.close()


def test_thanks_sum_converted_gift_values_exactly() -> None:
    rates = Rates(ROOM_MONEY)
    gifts = [rates.revalue(Event("kuaishou", "en", EventKind.GIFT, User("1", "甲"), "", extra={"gift_name": "小心心"},
                                 money=Money("kuaishou_coin", 1))) for _ in range(3)]
    gifts.append(rates.revalue(Event("douyin", "en", EventKind.GIFT, User("2", "乙"), "", extra={"gift_name": "玫瑰"},
                                     money=Money("douyin_diamond", 10))))
    thanked = [x for x in _triage(gifts) if isinstance(x, Thank)]
    batch = Thanks(DirectorConfig().triage)
    for t in thanked:
        batch.add(t, 0.0)
    assert batch.gifts is not None and batch.gifts.value_milli == 3 * 100 + 1000  # ¥0.3 + ¥1, exactly
