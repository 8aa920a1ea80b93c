"""The platform-neutral Event: one comment, gift, super chat, … from any chat source."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


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
    value_cny: float = 0.0
    msg_id: str = ""
    # Kind-specific details (gift name and count, guard months, like count, system status, …).
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    received_mono: float = field(default_factory=time.monotonic)
    received_wall: float = field(default_factory=time.time)

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
            "value_cny": self.value_cny,
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
        return cls(
            platform=str(data.get("platform", "generic")),
            room=str(room if room is not None else data.get("room", "")),
            kind=kind,
            user=user,
            text=str(data.get("text", "") or ""),
            value_cny=float(data.get("value_cny", 0.0) or 0.0),
            msg_id=str(data.get("msg_id", "") or ""),
            extra=extra,
        )
