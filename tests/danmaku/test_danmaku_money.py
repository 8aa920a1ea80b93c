"""Money in any unit, exact: the platform's amount kept beside its value in the room's accounting currency."""

from __future__ import annotations

import logging
from decimal import Decimal

import pytest
from pydantic import ValidationError

from danmaku.config import ReplaySource
from danmaku.event import Event, EventKind, Money, User
from danmaku.money import MoneyConfig, Rates
from danmaku.source import Source


def paid(money: Money, kind: EventKind = EventKind.SUPER_CHAT) -> Event:
    return Event("t", "r", kind, User("1", "a"), "hi", money=money)


def test_money_of_keeps_the_decimal_exactly() -> None:
    assert Money.of("CNY", 30) == Money("CNY", 30, 0)
    assert Money.of("CNY", "0.10") == Money("CNY", 1, 1)
    assert Money.of("USD", 0.3) == Money("USD", 3, 1)
    assert Money.of("CNY", "1E+2") == Money("CNY", 100, 0)
    assert Money("USD", 5_000_000, 6).decimal == Decimal("5")
    for bad in ("-1", "nan", "lots", True):
        with pytest.raises(ValueError):
            Money.of("CNY", bad)
    with pytest.raises(ValueError):
        Money("", 1)
    with pytest.raises(TypeError):
        Money("USD", 1.5)  # type: ignore[arg-type]


def test_rates_convert_exactly_and_round_once_half_even() -> None:
    rates = Rates(MoneyConfig(rates={"USD": "7.1", "JPY": "0.047"}))
    assert rates.value_milli(Money("USD", 5_000_000, 6)) == 35_500  # a $5 Super Chat: ¥35.5
    assert rates.value_milli(Money("twitch_bit", 500)) == 35_500  # 500 bits = $5.00 to the streamer
    assert rates.value_milli(Money("JPY", 333_000_000, 6)) == 15_651  # ¥333 × 0.047 = 15.651 CNY
    assert rates.value_milli(Money("kuaishou_coin", 10)) == 1000  # 10 快币 = ¥1, no rate needed
    assert rates.value_milli(Money("bilibili_gold", 1)) == 1
    assert rates.value_milli(Money("CNY", 25, 4)) == 2  # 0.0025 CNY = 2.5 milli → 2 (half to even)
    assert rates.value_milli(Money("CNY", 35, 4)) == 4  # 3.5 milli → 4
    # 0.1 + 0.1 + 0.1 is exact, whatever the exponent it came with
    assert sum(rates.value_milli(Money.of("USD", "0.1")) or 0 for _ in range(3)) == 2130


def test_other_accounting_currency_and_unit_overrides() -> None:
    rates = Rates(MoneyConfig(currency="USD", rates={"CNY": "0.14", "twitch_bit": "0.012"},
                              units={"youtube_membership": {"currency": "USD", "per_unit": "2.99"}}))
    assert rates.value_milli(Money("USD", 1_500_000, 6)) == 1500
    assert rates.value_milli(Money("twitch_bit", 100)) == 1200  # a direct rate wins over the default price
    assert rates.value_milli(Money("youtube_membership", 2)) == 5980
    assert rates.value_milli(Money("douyin_diamond", 10)) == 140  # ¥1 at 0.14 USD
    ev = rates.revalue(paid(Money("CNY", 100)))
    assert (ev.value_milli, ev.currency, ev.unrated) == (14_000, "USD", False)


def test_unrated_currency_is_still_paid_and_warned_once(caplog: pytest.LogCaptureFixture) -> None:
    rates = Rates(MoneyConfig(unrated_value="25"), room="en-1")
    with caplog.at_level(logging.WARNING, logger="danmaku.money"):
        evs = [rates.revalue(paid(Money("EUR", 2_000_000, 6))) for _ in range(3)]
        rates.revalue(paid(Money("twitch_bit", 100)))  # USD has no rate either: bits are unrated too
    assert all(e.unrated and e.value_milli == 25_000 and e.money == Money("EUR", 2_000_000, 6) for e in evs)
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 2, warnings
    assert "'EUR'" in warnings[0] and "money.rates" in warnings[0] and "en-1" in warnings[0]
    assert "'twitch_bit'" in warnings[1]


def test_event_json_keeps_both_amounts() -> None:
    ev = Rates(MoneyConfig(rates={"USD": "7"})).revalue(paid(Money("USD", 4_990_000, 6)))
    data = ev.to_json()
    assert data["money"] == {"unit": "USD", "amount": 4_990_000, "exp": 6}
    assert data["value_milli"] == 34_930 and data["currency"] == "CNY" and "unrated" not in data
    back = Event.from_json(data)
    assert (back.money, back.value_milli, back.currency) == (ev.money, 34_930, "CNY")
    free = Event("t", "r", EventKind.COMMENT).to_json()
    assert "money" not in free and free["currency"] == "CNY"
    for bad in ({"unit": "USD", "amount": 1.5}, {"unit": 5, "amount": 1}, {"unit": "USD", "amount": -1},
                "USD 5"):
        with pytest.raises(ValueError, match="money"):
            Event.from_json({"kind": "super_chat", "money": bad})


def test_config_errors_name_the_key() -> None:
    with pytest.raises(ValidationError, match="rates"):
        MoneyConfig(rates={"usd": "7"})
    with pytest.raises(ValidationError, match=r"rates\.USD"):
        MoneyConfig(rates={"USD": "-7"})
    with pytest.raises(ValidationError, match="currency"):
        MoneyConfig(currency="yuan")
    with pytest.raises(ValidationError, match="units"):
        MoneyConfig(units={"Bits": {"currency": "USD", "per_unit": 1}})


class _Probe(Source):
    async def _session(self) -> None:  # never run: the test only emits
        raise AssertionError


async def test_sources_value_with_the_room_table_from_the_room_config(tmp_path) -> None:
    from broadcaster.config import parse_config

    rec = tmp_path / "chat.jsonl"
    rec.write_text("")
    config = parse_config({"rooms": [{
        "id": "en", "money": {"currency": "CNY", "rates": {"USD": "7.2"}},
        "sources": [{"type": "replay", "path": str(rec)},
                    {"type": "group", "name": "g", "members": [{"type": "replay", "name": "a", "path": str(rec)},
                                                              {"type": "replay", "name": "b", "path": str(rec)}]}],
    }]}, check_files=False)
    room = config.rooms[0]
    assert all(s.money.rates == {"USD": Decimal("7.2")} for s in room.sources)
    assert room.sources[1].members[1].money.rates["USD"] == Decimal("7.2")  # type: ignore[union-attr]
    copied = room.sources[1].members[0].model_copy(update={"name": "g/a"})  # as open_source names members
    assert copied.money.rates["USD"] == Decimal("7.2")
    src = _Probe(room.sources[0], "en")
    src._emit(paid(Money("USD", 10_000_000, 6)))
    ev = src._queue.get_nowait()
    assert ev is not None and ev.value_milli == 72_000
    alone = _Probe(ReplaySource(type="replay", path=rec), "x")  # no room: defaults, USD unrated
    alone._emit(paid(Money("USD", 10_000_000, 6)))
    ev = alone._queue.get_nowait()
    assert ev is not None and ev.unrated and ev.value_milli == 10_000


def test_a_new_rate_table_is_a_change_of_the_sources(tmp_path) -> None:
    """A reload that changes only `money:` reopens the room's connectors (the content section `sources`), so
    they value money with the new table."""
    from broadcaster.config import parse_config

    def room(rate: str):
        return parse_config({"rooms": [{"id": "en", "money": {"rates": {"USD": rate}},
                                        "sources": [{"type": "replay", "path": str(tmp_path / "x.jsonl")}]}]},
                            check_files=False).rooms[0]

    assert room("7.2").changed(room("7.2"), ["sources"]) == []
    assert room("7.3").changed(room("7.2"), ["sources"]) == ["sources"]
