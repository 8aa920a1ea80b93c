"""The platform-neutral Event: one comment, gift, super chat, … from any chat source."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

# Money is counted in milli-yuan (0.001 CNY) as an exact integer: one Bilibili gold coin is 1, a Douyin
# diamond is 100, one yuan is 1000. Floats appear only when a value is shown to a person.
MILLI_PER_CNY = 1000


def cny_to_milli(value: Any) -> int:
    """Yuan (int, float or numeric string) → milli-yuan, rounded once, half to even; ValueError if not a number.

    Goes through the value's decimal text so 0.3 becomes 300, never 299 or 300.00000000000006."""
    if isinstance(value, bool):
        raise ValueError("a money value must be a number, not a boolean")
    if isinstance(value, int):
        return value * MILLI_PER_CNY
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"money value {value!r} is not finite")
    try:
        d = Decimal(str(value).strip())
    except InvalidOperation as exc:
        raise ValueError(f"money value {value!r} is not a number") from exc
    if not d.is_finite():
        raise ValueError(f"money value {value!r} is not finite")
    return int((d * MILLI_PER_CNY).to_integral_value(ROUND_HALF_EVEN))


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
    value_milli: int = 0  # exact money value in 0.001 CNY (see MILLI_PER_CNY); 0 for free gifts and chat
    msg_id: str = ""
    # Kind-specific details (gift name and count, guard months, like count, system status, …).
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    received_mono: float = field(default_factory=time.monotonic)
    received_wall: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        # A float here is almost surely yuan from the old contract: fail loudly rather than be 1000× off.
        if type(self.value_milli) is not int:
            raise TypeError(f"Event.value_milli must be an int count of 0.001 CNY, got {self.value_milli!r}")

    @property
    def value_cny(self) -> float:
        """The value in yuan, for display only: sums and comparisons belong on `value_milli`."""
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
        return cls(
            platform=str(data.get("platform", "generic")),
            room=str(room if room is not None else data.get("room", "")),
            kind=kind,
            user=user,
            text=str(data.get("text", "") or ""),
            value_milli=value_milli,
            msg_id=str(data.get("msg_id", "") or ""),
            extra=extra,
        )
