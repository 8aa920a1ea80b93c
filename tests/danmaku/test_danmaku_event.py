"""The Event money contract: exact integer milli-yuan; yuan only for display and from the legacy JSON key."""

from __future__ import annotations

import pytest

from danmaku.event import Event, EventKind, User, cny_to_milli


def test_money_is_exact_milli_yuan() -> None:
    gifts = [Event("douyin", "r", EventKind.GIFT, User("1", "a"), value_milli=100) for _ in range(3)]
    assert sum(e.value_milli for e in gifts) == 300  # 0.1 + 0.1 + 0.1 yuan, with no 0.30000000000000004
    assert gifts[0].value_cny == 0.1 and Event("t", "r", EventKind.COMMENT).value_milli == 0
    with pytest.raises(TypeError, match="value_milli"):
        Event("t", "r", EventKind.GIFT, None, "", 0.3)  # type: ignore[arg-type]  # yuan from the old contract


def test_json_round_trip_and_legacy_yuan() -> None:
    ev = Event("bilibili", "r", EventKind.SUPER_CHAT, User("1", "a"), "hi", 30_000, "sc:1")
    data = ev.to_json()
    assert data["value_milli"] == 30_000 and "value_cny" not in data
    assert Event.from_json(data).value_milli == 30_000
    assert Event.from_json({"kind": "gift", "value_cny": 0.3}).value_milli == 300  # converted once, rounded
    assert Event.from_json({"kind": "gift", "value_cny": "198"}).value_milli == 198_000
    assert Event.from_json({"kind": "gift", "value_milli": 1500.0}).value_milli == 1500
    for bad in ({"kind": "gift", "value_milli": 1.5}, {"kind": "gift", "value_milli": True},
                {"kind": "gift", "value_cny": "lots"}, {"kind": "gift", "value_cny": float("nan")}):
        with pytest.raises(ValueError):
            Event.from_json(bad)
    assert cny_to_milli(0.1) == 100 and cny_to_milli(2.675) == 2675 and cny_to_milli(7) == 7000
