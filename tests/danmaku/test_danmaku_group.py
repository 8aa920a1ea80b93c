"""Source groups: Bilibili open platform ↔ web failover against both loopback fakes, with no event lost or doubled."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest
from dm_fakes import BiliOpenFake, BiliWebFake, Collector, cmd_packet, until

from danmaku import metrics
from danmaku.config import GroupSource
from danmaku.event import Event, EventKind, User
from danmaku.group import fingerprint, same_user
from danmaku.sources import open_source

P = "LIVE_OPEN_PLATFORM_"


@pytest.fixture
async def fakes() -> AsyncIterator[tuple[BiliOpenFake, BiliWebFake]]:
    op, wb = BiliOpenFake(), BiliWebFake()
    await op.start()
    await wb.start()
    yield op, wb
    await op.stop()
    await wb.stop()


def open_member(fake: BiliOpenFake) -> dict[str, Any]:
    return {"type": "bilibili_open", "name": "open", "code": BiliOpenFake.CODE, "app_id": BiliOpenFake.APP_ID,
            "access_key_id": BiliOpenFake.KEY_ID, "access_key_secret": BiliOpenFake.KEY_SECRET,
            "api_base": fake.base, "heartbeat_s": 0.5, "project_heartbeat_s": 5, "reconnect_delay_s": 0.05,
            "reconnect_max_delay_s": 0.1}


def web_member(fake: BiliWebFake) -> dict[str, Any]:
    return {"type": "bilibili_web", "name": "web", "room_id": 5, "sessdata": "good", "api_base": fake.base,
            "nav_base": fake.base, "home_url": fake.base + "/", "scheme": "ws", "heartbeat_s": 0.5,
            "reconnect_delay_s": 0.05, "reconnect_max_delay_s": 0.1, "silent_after_s": None,
            "fallback_host": "127.0.0.1", "fallback_ws_port": fake.port, "fallback_wss_port": fake.port}


def web_dm(n: int, name: str, text: str) -> bytes:
    info = [[0, 1, 25, 16777215, 1700000000000 + n, n, 0, "abcd", 0, 0, 0, "", 0, "{}", "{}", {}], text,
            [1000 + n, name, 0, 0, 0, 10000, 1, ""], [], [10, 0, 0, ">50000"], ["", ""], 0, 0]
    return cmd_packet({"cmd": "DANMU_MSG", "info": info})


def open_dm(n: int, name: str, text: str) -> dict[str, Any]:
    return {"cmd": P + "DM", "data": {"uname": name, "open_id": f"o{n}", "msg": text, "msg_id": f"op-{n}"}}


async def both(op: BiliOpenFake, wb: BiliWebFake, n: int, text: str, name: str = "观众甲",
               web_first: bool = False) -> None:
    """The same comment as each platform API delivers it (different ids), a few ms apart."""
    sends = [op.push([open_dm(n, name, text)]), wb.push([web_dm(n, name, text)])]
    for s in reversed(sends) if web_first else sends:
        await s
        await asyncio.sleep(0.01)


def switches(room: str, group: str, to: str, reason: str) -> float:
    return metrics.SOURCE_SWITCHES.labels(room, group, to, reason)._value.get()


async def test_open_down_fails_over_to_web_and_back_with_no_event_lost_or_doubled(
        fakes: tuple[BiliOpenFake, BiliWebFake]) -> None:
    op, wb = fakes
    cfg = GroupSource.model_validate({"type": "group", "name": "bili", "members": [open_member(op), web_member(wb)],
                                      "switch_after_s": 0.3, "recover_after_s": 0.4, "stale_after_s": None,
                                      "dedup_window_s": 3.0})
    src = open_source(cfg, "g1")
    col = Collector(src)
    await asyncio.wait_for(asyncio.gather(op.connected.wait(), wb.connected.wait()), 10)
    await until(lambda: src.health().connected and src.health().active == "bili/open")

    await both(op, wb, 1, "一号")
    await both(op, wb, 2, "二号", web_first=True)
    await col.wait_for(2)

    # The open platform goes down; the web feed keeps the room's chat.
    op.down = True
    op.connected.clear()
    await op.drop_all()
    await wb.push([web_dm(3, "观众甲", "三号")])  # inside the grace period: buffered, not lost
    await wb.push([web_dm(4, "观众乙", "四号")])
    await until(lambda: src.health().active == "bili/web", timeout=5)
    assert "switched from bili/open (down) to bili/web" in src.health().last_warning
    await wb.push([web_dm(5, "观众甲", "五号")])
    await col.wait_for(5)

    # It comes back; while both run the same chat arrives twice; after recover_after_s the group goes back.
    op.down = False
    await asyncio.wait_for(op.connected.wait(), 10)
    await both(op, wb, 6, "六号", web_first=True)
    await until(lambda: src.health().active == "bili/open", timeout=5)
    assert src.health().last_warning == ""
    await both(op, wb, 7, "七号", web_first=True)
    # Anonymous web names are masked; the open platform's are not: still the same viewer.
    await wb.push([web_dm(8, "观***", "八号")])
    await op.push([open_dm(8, "观众丙", "八号")])
    await both(op, wb, 9, "九号")
    await col.wait_for(9)
    await asyncio.sleep(0.3)  # a late copy would show up here
    texts = [e.text for e in col.events]
    assert Counter(texts) == Counter(["一号", "二号", "三号", "四号", "五号", "六号", "七号", "八号", "九号"]), texts
    assert texts.index("三号") < texts.index("四号") < texts.index("五号")
    assert src.switches == 2  # type: ignore[attr-defined]
    assert switches("g1", "bili", "bili/web", "down") == 1 and switches("g1", "bili", "bili/open", "recovered") == 1
    assert metrics.SOURCE_ACTIVE.labels("g1", "bili", "bili/open")._value.get() == 1
    h = src.health()
    assert [m.name for m in h.members] == ["bili/open", "bili/web"] and h.to_json()["active"] == "bili/open"
    await col.close()
    assert [c for c in op.calls if c[0] == "end"]  # stopping the group ends the open-platform game


async def test_silent_web_fails_over_to_open_and_back(fakes: tuple[BiliOpenFake, BiliWebFake]) -> None:
    op, wb = fakes
    # switch_after_s is long: only "stale while the other feed delivers" can move it quickly.
    cfg = GroupSource.model_validate({"type": "group", "name": "bili", "members": [web_member(wb), open_member(op)],
                                      "switch_after_s": 30, "recover_after_s": 0.3, "stale_after_s": 0.6,
                                      "dedup_window_s": 3.0})
    src = open_source(cfg, "g2")
    col = Collector(src)
    await asyncio.wait_for(asyncio.gather(op.connected.wait(), wb.connected.wait()), 10)
    await until(lambda: src.health().connected and src.health().active == "bili/web")
    await both(op, wb, 1, "一号", web_first=True)
    await col.wait_for(1)

    # The web feed stays connected but stops delivering (rate-limited, say); the open platform carries on.
    expected = ["一号"]
    n = 2
    while src.health().active != "bili/open":
        assert n < 100, "no switch to the open platform"
        expected.append(f"{n}号")
        await op.push([open_dm(n, "观众甲", f"{n}号")])
        n += 1
        await asyncio.sleep(0.1)
    await op.push([open_dm(n, "观众甲", "四号")])
    expected.append("四号")
    await col.wait_for(len(expected))

    # Web delivers again: after recover_after_s the group goes back to it.
    await both(op, wb, 105, "五号", web_first=True)
    await until(lambda: src.health().active == "bili/web", timeout=5)
    await both(op, wb, 106, "六号")
    expected += ["五号", "六号"]
    await col.wait_for(len(expected))
    await asyncio.sleep(0.3)
    texts = [e.text for e in col.events]
    assert Counter(texts) == Counter(expected), texts
    assert switches("g2", "bili", "bili/open", "stale") == 1 and switches("g2", "bili", "bili/web", "recovered") == 1
    await col.close()


async def test_a_quiet_room_does_not_switch(fakes: tuple[BiliOpenFake, BiliWebFake]) -> None:
    op, wb = fakes
    cfg = GroupSource.model_validate({"type": "group", "name": "bili", "members": [open_member(op), web_member(wb)],
                                      "switch_after_s": 0.3, "stale_after_s": 0.3})
    src = open_source(cfg, "g3")
    col = Collector(src)
    await asyncio.wait_for(asyncio.gather(op.connected.wait(), wb.connected.wait()), 10)
    await asyncio.sleep(1.0)  # nobody says anything on either feed
    assert src.health().active == "bili/open" and src.switches == 0  # type: ignore[attr-defined]
    await col.close()


def _ev(kind: EventKind, name: str, text: str = "", **extra: Any) -> Event:
    return Event("bilibili", "r", kind, User("1", name), text, extra=extra)


def test_fingerprint_and_names() -> None:
    assert fingerprint(_ev(EventKind.COMMENT, "a", "ＨＥＬＬＯ  主播")) == fingerprint(_ev(EventKind.COMMENT, "b", "hello主播"))
    gift = fingerprint(_ev(EventKind.GIFT, "a", gift_name="小花花", count=5))
    assert gift == fingerprint(_ev(EventKind.GIFT, "a", gift_name="小花花", count=5))
    assert gift != fingerprint(_ev(EventKind.GIFT, "a", gift_name="小花花", count=1))
    assert fingerprint(_ev(EventKind.VOICE, "a", "x")) is None
    assert same_user("观众乙", "观***") and same_user("观***", "观众乙") and same_user("Ａbc", "abc")
    assert not same_user("观众乙", "看***") and not same_user("***", "观众乙") and not same_user("a", "b")


@pytest.mark.parametrize(
    ("group", "words"),
    [
        ({"members": [{"type": "replay", "path": "/dev/null"}]}, "at least 2"),
        ({"members": [{"type": "replay", "path": "/dev/null"}, {"type": "replay", "path": "/dev/null"}]},
         "unique within a group"),
        ({"members": [{"type": "replay", "path": "/dev/null", "name": "a"},
                      {"type": "group", "members": []}]}, "does not match any of the expected tags"),
        ({"silent_after_s": 5, "members": [{"type": "replay", "path": "/dev/null", "name": "a"},
                                           {"type": "replay", "path": "/dev/null", "name": "b"}]}, "stale_after_s"),
    ],
)
def test_group_config_errors(group: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        GroupSource.model_validate({"type": "group", **group})
