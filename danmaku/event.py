"""The platform-neutral Event: one comment, gift, super chat, … from any chat source.

Money, exactly (the contract; docs/platforms.md has the tables):
- `money` is what the platform said, in its own unit, as an exact integer: `Money(unit, amount, exp)` is
  amount × 10^-exp of unit — `Money("twitch_bit", 500)`, a Super Chat's `Money("USD", 5_000_000, 6)` (YouTube's
  amountMicros), `Money("kuaishou_coin", 10)` (快币), `Money("CNY", 30)` (a Bilibili super chat). A unit is an
  ISO 4217 currency code or a platform unit (danmaku.money.PLATFORM_UNITS). None for free events.
- `value_milli` is that money's value in the room's accounting currency (`currency`, CNY unless the room's
  `money:` section says otherwise) in integer thousandths: a Source converts `money` once, with the room's rate
  table, as the event leaves it (danmaku.money.Rates). Priorities, thanks and sums use `value_milli` alone.
- `unrated` marks a paid event whose unit had no rate: `value_milli` is then the room's configured stand-in
  (money.unrated_value), so it still ranks as a paid event; the unit is warned about once.
An Event built without `money` (older producers, webhooks) carries `value_milli` as given, in `currency`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

# Value is counted in thousandths of the accounting currency as an exact integer: with CNY, one Bilibili gold
# coin is 1, a Douyin diamond is 100, one yuan is 1000. Floats appear only when a value is shown to a person.
MILLI_PER_CNY = 1000
DEFAULT_CURRENCY = "CNY"
_MAX_EXP = 18


def parse_decimal(value: Any, what: str) -> Decimal:
    """A number as a platform sends it (int, float, numeric string) → its exact decimal; ValueError otherwise.

    Goes through the value's decimal text, so 0.3 is 0.3, never 0.299999… or 0.30000000000000004."""
    if isinstance(value, bool):
        raise ValueError(f"a {what} must be a number, not a boolean")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{what} {value!r} is not finite")
    try:
        d = Decimal(str(value).strip())
    except InvalidOperation as exc:
        raise ValueError(f"{what} {value!r} is not a number") from exc
    if not d.is_finite():
        raise ValueError(f"{what} {value!r} is not finite")
    return d


@dataclass(frozen=True, slots=True)
class Money:
    """An amount in a platform's own unit, exact: `amount` × 10^-`exp` of `unit` (a currency or platform unit)."""

    unit: str
    amount: int
    exp: int = 0

    def __post_init__(self) -> None:
        if type(self.amount) is not int or type(self.exp) is not int:
            raise TypeError(f"Money amount and exp must be ints, got {self.amount!r}, {self.exp!r}")
        if self.amount < 0 or not 0 <= self.exp <= _MAX_EXP or not self.unit:
            raise ValueError(f"Money needs a unit, amount >= 0 and 0 <= exp <= {_MAX_EXP} (got {self!r})")

    @classmethod
    def of(cls, unit: str, value: Any) -> Money:
        """From a decimal number as a platform sends it (30, "30.5", 0.1), exactly: Money.of("CNY", "0.1") is
        Money("CNY", 1, 1). ValueError when it is no finite, non-negative number with at most 18 decimals."""
        if isinstance(value, int) and not isinstance(value, bool):
            return cls(unit, value)
        d = parse_decimal(value, "money amount").normalize()
        exp = max(0, -int(d.as_tuple().exponent))
        return cls(unit, int(d.scaleb(exp)), exp)

    @property
    def decimal(self) -> Decimal:
        return Decimal(self.amount).scaleb(-self.exp)

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "amount": self.amount, "exp": self.exp}

    @classmethod
    def from_json(cls, data: Any) -> Money:
        if not isinstance(data, dict) or not isinstance(data.get("unit"), str):
            raise ValueError("event.money must be an object {unit, amount, exp}")
        amount, exp = data.get("amount"), data.get("exp", 0)
        if type(amount) is not int or type(exp) is not int:
            raise ValueError("event.money.amount and .exp must be integers")
        try:
            return cls(data["unit"], amount, exp)
        except ValueError as exc:
            raise ValueError(f"event.money: {exc}") from exc


def cny_to_milli(value: Any) -> int:
    """Yuan (int, float or numeric string) → milli-yuan, rounded once, half to even; ValueError if not a number."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value * MILLI_PER_CNY
    return int((parse_decimal(value, "money value") * MILLI_PER_CNY).to_integral_value(ROUND_HALF_EVEN))


def _milli_field(value: Any) -> int:
    """The JSON `value_milli`: an integer (an integral float such as 300.0 is accepted)."""
    if isinstance(value, bool):
        raise ValueError("event.value_milli must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise ValueError(f"event.value_milli must be an integer count of 0.001 CNY (got {value!r})")


class EventKind(StrEnum):
    COMMENT = "comment"
    GIFT = "gift"
    SUPER_CHAT = "super_chat"
    GUARD = "guard"
    LIKE = "like"
    ENTER = "enter"
    FOLLOW = "follow"
    SYSTEM = "system"
    VOICE = "voice"


@dataclass(frozen=True, slots=True)
class User:
    id: str
    name: str
    level: int = 0
    medal_name: str = ""
    medal_level: int = 0
    guard_level: int = 0  # 0 none, 1 总督, 2 提督, 3 舰长 (Bilibili numbering)
    face: str = ""


@dataclass(frozen=True, slots=True)
class Event:
    platform: str
    room: str
    kind: EventKind
    user: User | None = None
    text: str = ""
    value_milli: int = 0  # exact value in thousandths of `currency` (see the module doc); 0 for free events
    msg_id: str = ""
    # Kind-specific details (gift name and count, guard months, like count, system status, …).
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    received_mono: float = field(default_factory=time.monotonic)
    received_wall: float = field(default_factory=time.time)
    money: Money | None = None  # the platform's own amount; None for free events
    currency: str = DEFAULT_CURRENCY  # the accounting currency `value_milli` counts in
    unrated: bool = False  # money's unit had no rate: value_milli is the room's stand-in for a paid event

    def __post_init__(self) -> None:
        # A float here is almost surely yuan from the old contract: fail loudly rather than be 1000× off.
        if type(self.value_milli) is not int:
            raise TypeError(f"Event.value_milli must be an int count of 0.001 {self.currency}, "
                            f"got {self.value_milli!r}")

    @property
    def value_cny(self) -> float:
        """The value in units of `currency` (yuan by default), for display only: sums and comparisons belong on
        `value_milli`."""
        return self.value_milli / MILLI_PER_CNY

    def to_json(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "room": self.room,
            "kind": self.kind.value,
            "user": None
            if self.user is None
            else {
                "id": self.user.id,
                "name": self.user.name,
                "level": self.user.level,
                "medal_name": self.user.medal_name,
                "medal_level": self.user.medal_level,
                "guard_level": self.user.guard_level,
                "face": self.user.face,
            },
            "text": self.text,
            "value_milli": self.value_milli,
            "currency": self.currency,
            **({"money": self.money.to_json()} if self.money is not None else {}),
            **({"unrated": True} if self.unrated else {}),
            "msg_id": self.msg_id,
            "extra": self.extra,
            "received_wall": self.received_wall,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], *, room: str | None = None) -> Event:
        """Builds an Event from the JSON shape of `to_json`; raises ValueError on a bad shape."""
        if not isinstance(data, dict):
            raise ValueError("event must be a JSON object")
        try:
            kind = EventKind(data["kind"])
        except (KeyError, ValueError) as exc:
            raise ValueError(f"event.kind must be one of {[k.value for k in EventKind]}") from exc
        user_data = data.get("user")
        user = None
        if user_data is not None:
            if not isinstance(user_data, dict) or "name" not in user_data:
                raise ValueError("event.user must be an object with at least 'name'")
            user = User(
                id=str(user_data.get("id", "")),
                name=str(user_data["name"]),
                level=int(user_data.get("level", 0) or 0),
                medal_name=str(user_data.get("medal_name", "") or ""),
                medal_level=int(user_data.get("medal_level", 0) or 0),
                guard_level=int(user_data.get("guard_level", 0) or 0),
                face=str(user_data.get("face", "") or ""),
            )
        extra = data.get("extra") or {}
        if not isinstance(extra, dict):
            raise ValueError("event.extra must be an object")
        if data.get("value_milli") is not None:
            value_milli = _milli_field(data["value_milli"])
        elif data.get("value_cny") is not None:  # the older shape: yuan as a float, converted once here
            value_milli = cny_to_milli(data["value_cny"])
        else:
            value_milli = 0
        money = Money.from_json(data["money"]) if data.get("money") is not None else None
        currency = data.get("currency") or DEFAULT_CURRENCY
        if not isinstance(currency, str):
            raise ValueError("event.currency must be a currency code")
        return cls(
            platform=str(data.get("platform", "generic")),
            room=str(room if room is not None else data.get("room", "")),
            kind=kind,
            user=user,
            text=str(data.get("text", "") or ""),
            value_milli=value_milli,
            msg_id=str(data.get("msg_id", "") or ""),
            extra=extra,
            money=money,
            currency=currency,
            unrated=bool(data.get("unrated", False)),
        )
