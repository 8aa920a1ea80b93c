"""A room's money table: what one unit of a currency or platform unit is worth in its accounting currency.

Events carry the platform's own amount (`Event.money`); `Rates.revalue` sets `value_milli`, the value in the
room's accounting currency in exact integer thousandths, once, as the event leaves its Source. Platform units
(bits, 快币, diamonds, sub tiers) have documented defaults priced in a currency; currency rates come only from the
operator (`money.rates`), never from the network. A unit with no rate still makes a paid event: it is valued at
`unrated_value` and warned about once (log line and the va_money_unrated_events metric).

    money:
      currency: CNY            # the accounting currency (ISO 4217)
      rates:                   # 1 USD is worth 7.1 CNY, … (the operator's figures; quote them: "7.1")
        USD: "7.1"
        JPY: "0.047"
      units:                   # override or add a platform unit, priced in a currency
        youtube_membership: {currency: USD, per_unit: "2.99"}
      unrated_value: "10"      # what a paid event in a unit with no rate ranks as, in `currency`
"""

from __future__ import annotations

import dataclasses
import logging
import re
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from typing import Any

from pydantic import Field, field_validator

from common.config import Model
from danmaku import metrics
from danmaku.event import MILLI_PER_CNY, Event, Money, parse_decimal

log = logging.getLogger("danmaku.money")

_CODE = r"^[A-Z]{3}$"
_UNIT = r"^[a-z][a-z0-9]*[_:][a-z0-9_:.-]{1,60}$"  # twitch_bit, kuaishou_gift:9

# Platform units and what one is worth, in the currency the platform prices it in. Sources: docs/platforms.md.
PLATFORM_UNITS: dict[str, tuple[str, str]] = {
    "bilibili_gold": ("CNY", "0.001"),  # 金瓜子/电池 price in gold: 1000 = ¥1
    "bilibili_silver": ("CNY", "0"),  # 银瓜子: free gifts, never revenue
    "douyin_diamond": ("CNY", "0.1"),  # 抖币 (钻): 10 = ¥1
    "kuaishou_coin": ("CNY", "0.1"),  # 快币: 10 = ¥1
    "twitch_bit": ("USD", "0.01"),  # what the streamer receives per bit
    "twitch_sub_prime": ("USD", "4.99"),  # Prime Gaming sub: counted as a tier-1 month
    "twitch_sub_tier1": ("USD", "4.99"),  # US list prices; regional prices are lower (override in `units`)
    "twitch_sub_tier2": ("USD", "9.99"),
    "twitch_sub_tier3": ("USD", "24.99"),
    "youtube_membership": ("USD", "4.99"),  # a month of the channel's (first) level; set your level's price
}


def _decimal(value: Any, what: str) -> Decimal:
    d = parse_decimal(value, what)
    if d < 0:
        raise ValueError(f"{what} must be >= 0 (got {value!r})")
    return d


class UnitPrice(Model):
    """One platform unit's worth, in a currency: `{currency: USD, per_unit: "0.01"}`."""

    currency: str = Field(pattern=_CODE)
    per_unit: Decimal

    @field_validator("per_unit", mode="before")
    @classmethod
    def _price(cls, v: Any) -> Decimal:
        return _decimal(v, "per_unit")


class MoneyConfig(Model):
    """The room's accounting: the currency values are kept in and the operator's rate table (see module doc)."""

    currency: str = Field("CNY", pattern=_CODE)
    # 1 unit of the key (a currency code, or a platform unit priced directly) is worth this much of `currency`.
    rates: dict[str, Decimal] = Field(default_factory=dict)
    units: dict[str, UnitPrice] = Field(default_factory=dict)
    unrated_value: Decimal = Decimal("10")

    @field_validator("rates", mode="before")
    @classmethod
    def _rates(cls, v: Any) -> Any:
        if not isinstance(v, dict):
            return v
        out = {}
        for key, rate in v.items():
            if not isinstance(key, str) or not (re.match(_CODE, key) or re.match(_UNIT, key)):
                raise ValueError(f"rates: {key!r} is neither a currency code (USD) nor a platform unit (twitch_bit)")
            out[key] = _decimal(rate, f"rates.{key}")
        return out

    @field_validator("units")
    @classmethod
    def _unit_names(cls, v: dict[str, UnitPrice]) -> dict[str, UnitPrice]:
        for key in v:
            if not re.match(_UNIT, key):
                raise ValueError(f"units: {key!r} is not a platform unit name (lower case, e.g. twitch_bit)")
        return v

    @field_validator("unrated_value", mode="before")
    @classmethod
    def _unrated(cls, v: Any) -> Decimal:
        return _decimal(v, "unrated_value")


def _milli(d: Decimal) -> int:
    return int(d.to_integral_value(ROUND_HALF_EVEN))


class Rates:
    """Values Money in the accounting currency, exactly (Decimal, rounded once to the thousandth, half to even)."""

    def __init__(self, cfg: MoneyConfig | None = None, room: str = "") -> None:
        self.cfg = cfg or MoneyConfig()
        self.room = room
        self.currency = self.cfg.currency
        self.unrated_milli = _milli(self.cfg.unrated_value * MILLI_PER_CNY)
        self._factors: dict[str, Decimal | None] = {}
        self.warned: set[str] = set()

    def factor(self, unit: str) -> Decimal | None:
        """What one `unit` is worth in the accounting currency; None when nothing prices it."""
        try:
            return self._factors[unit]
        except KeyError:
            pass
        f = self._factor(unit)
        self._factors[unit] = f
        return f

    def _factor(self, unit: str) -> Decimal | None:
        if unit == self.currency:
            return Decimal(1)
        if unit in self.cfg.rates:
            return self.cfg.rates[unit]
        price = self.cfg.units.get(unit)
        if price is not None:
            currency, per_unit = price.currency, price.per_unit
        elif unit in PLATFORM_UNITS:
            currency, raw = PLATFORM_UNITS[unit]
            per_unit = Decimal(raw)
        else:
            return None
        if currency == self.currency:
            return per_unit
        rate = self.cfg.rates.get(currency)
        return None if rate is None else per_unit * rate

    def value_milli(self, money: Money) -> int | None:
        """money's value in thousandths of the accounting currency; None when its unit has no rate."""
        f = self.factor(money.unit)
        if f is None:
            return None
        with localcontext() as ctx:
            ctx.prec = 60  # exact for any amount a platform sends: the only rounding is the final one
            return _milli(Decimal(money.amount).scaleb(-money.exp) * f * MILLI_PER_CNY)

    def revalue(self, event: Event) -> Event:
        """The event with value_milli (and currency, unrated) from its money; events without money as they are."""
        money = event.money
        if money is None:
            return event
        value = self.value_milli(money)
        if value is None:
            self._unrated(money.unit)
            value, unrated = self.unrated_milli, True
        else:
            unrated = False
        if value == event.value_milli and unrated == event.unrated and event.currency == self.currency:
            return event
        return dataclasses.replace(event, value_milli=value, currency=self.currency, unrated=unrated)

    def _unrated(self, unit: str) -> None:
        metrics.MONEY_UNRATED.labels(self.room, unit).inc()
        if unit in self.warned:
            return
        self.warned.add(unit)
        hint = ("add its currency to money.rates" if unit.isupper() else
                "price it in money.units or money.rates")
        log.warning("%s: no rate for %r into %s (%s); its paid events rank as %s %s (money.unrated_value)",
                    self.room or "-", unit, self.currency, hint, self.cfg.unrated_value, self.currency)
