"""Douyin webcast frames (PushFrame → gzip → Response → Message) and the Webcast*Message → Event mapping.

Gifts are combo-aware: a combo repeats one GiftMessage per step; it is counted once, on its end frame
(repeatEnd == 1), or after `combo_timeout_s` when the end frame never came. Values: diamonds × diamond_cny.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from danmaku import pb
from danmaku.event import Event, EventKind, User
from danmaku.source import DecodeError

PLATFORM = "douyin"

IGNORED = frozenset(
    {
        "WebcastRoomStatsMessage", "WebcastRoomMessage", "WebcastRoomRankMessage", "WebcastRoomStreamAdaptationMessage",
        "WebcastRoomDataSyncMessage", "WebcastFansclubMessage", "WebcastRanklistHourEntranceMessage",
        "WebcastInRoomBannerMessage", "WebcastLinkMicMethod", "WebcastLinkerContributeMessage",
        "WebcastProductChangeMessage", "WebcastUpdateFanTicketMessage", "WebcastCommonTextMessage",
        "WebcastRoomIntroMessage", "WebcastLinkMicArmiesMethod", "WebcastScreenChatMessage",
        "WebcastBackupSEIMessage", "WebcastHotChatMessage", "WebcastTempStateAreaReachMessage",
    }
)


@dataclass(frozen=True, slots=True)
class PushFrame:
    log_id: int
    payload_type: str
    payload_encoding: str
    payload: bytes


def parse_push_frame(data: bytes) -> PushFrame:
    f = pb.decode(data)
    return PushFrame(pb.get_int(f, 2), pb.get_str(f, 7), pb.get_str(f, 6), pb.get_bytes(f, 8))


def encode_push_frame(payload_type: str, payload: bytes = b"", log_id: int = 0) -> bytes:
    fields: list[tuple[int, Any]] = []
    if log_id:
        fields.append((2, log_id))
    fields.append((7, payload_type))
    if payload:
        fields.append((8, payload))
    return pb.encode(fields)


def gunzip(data: bytes, limit: int) -> bytes:
    """gzip (or zlib) payload → bytes, refusing more than `limit` inflated bytes."""
    z = zlib.decompressobj(wbits=47)  # 32 + 15: accept gzip or zlib headers
    try:
        out = z.decompress(data, limit + 1)
    except zlib.error as exc:
        raise DecodeError("bad_compression", str(exc)) from exc
    if len(out) > limit or z.unconsumed_tail:
        raise DecodeError("too_large", f"inflated payload over {limit} bytes")
    if not z.eof:
        raise DecodeError("bad_compression", "gzip stream ends early")
    return out


@dataclass(frozen=True, slots=True)
class Response:
    messages: list[tuple[str, bytes, int]]  # (method, payload, msg id)
    internal_ext: str
    need_ack: bool


def parse_response(data: bytes) -> Response:
    f = pb.decode(data)
    msgs = []
    for m in pb.get_msgs(f, 1):
        msgs.append((pb.get_str(m, 1), pb.get_bytes(m, 2), pb.get_sint(m, 3)))
    return Response(msgs, pb.get_str(f, 5), pb.get_bool(f, 9))


def _user(f: pb.Fields) -> User:
    uid = pb.get_str(f, 1028) if 1028 in f else ""
    if not uid:
        uid = str(pb.get_int(f, 1)) if 1 in f else pb.get_str(f, 46)
    face = ""
    if 9 in f:
        urls = pb.get_strs(pb.get_msg(f, 9), 1)
        face = urls[0] if urls else ""
    level = 0
    if 23 in f:  # PayGrade{level=6}
        pay = pb.get_msg(f, 23)
        level = pb.get_int(pay, 6) if 6 in pay else 0
    medal_name, medal_level = "", 0
    if 24 in f:  # FansClub{data=1 {clubName=1, level=2}}
        club = pb.get_msg(f, 24)
        if 1 in club:
            data = pb.get_msg(club, 1)
            medal_name, medal_level = pb.get_str(data, 1), pb.get_int(data, 2)
    return User(id=uid, name=pb.get_str(f, 3), level=level, medal_name=medal_name, medal_level=medal_level, face=face)


@dataclass
class _Combo:
    user: User
    gift_id: int
    name: str
    diamonds: int
    count: int
    msg_id: str
    seen_mono: float


class DouyinNormalizer:
    def __init__(self, room: str, error: Callable[[str, str], None], unknown: Callable[[str], None],
                 live: Callable[[bool], None], diamond_cny: float = 0.1, combo_timeout_s: float = 10.0):
        self.room = room
        self._error, self._unknown, self._live = error, unknown, live
        self.diamond_cny = diamond_cny
        self.combo_timeout_s = combo_timeout_s
        self._combos: dict[tuple[str, int, int], _Combo] = {}
        self._handlers: dict[str, Callable[[pb.Fields, int, float, float], Event | None]] = {
            "WebcastChatMessage": self._chat,
            "WebcastEmojiChatMessage": self._emoji_chat,
            "WebcastGiftMessage": self._gift,
            "WebcastLikeMessage": self._like,
            "WebcastMemberMessage": self._member,
            "WebcastSocialMessage": self._social,
            "WebcastRoomUserSeqMessage": self._user_seq,
            "WebcastControlMessage": self._control,
        }

    def feed(self, messages: list[tuple[str, bytes, int]], out: list[Event]) -> None:
        mono, wall = time.monotonic(), time.time()
        for method, payload, msg_id in messages:
            handler = self._handlers.get(method)
            if handler is None:
                if method not in IGNORED:
                    self._unknown(method)
                continue
            try:
                ev = handler(pb.decode(payload), msg_id, mono, wall)
            except DecodeError as exc:
                self._error(exc.kind, f"{method}: {exc.detail}")
                continue
            if ev is not None:
                out.append(ev)
        self.flush(out, mono, wall)

    def flush(self, out: list[Event], mono: float | None = None, wall: float | None = None,
              force: bool = False) -> None:
        """Counts combos whose end frame never came (or all, with force: the connection is going away)."""
        if not self._combos:
            return
        mono = time.monotonic() if mono is None else mono
        wall = time.time() if wall is None else wall
        for key, c in list(self._combos.items()):
            if force or mono - c.seen_mono >= self.combo_timeout_s:
                del self._combos[key]
                out.append(self._gift_event(c, mono, wall, ended=False))

    def _gift_event(self, c: _Combo, mono: float, wall: float, ended: bool = True) -> Event:
        extra: dict[str, Any] = {"gift_name": c.name, "gift_id": c.gift_id, "count": c.count,
                                 "diamonds": c.diamonds * c.count}
        if not ended:
            extra["combo_end_missing"] = True
        return Event(PLATFORM, self.room, EventKind.GIFT, c.user, "", c.diamonds * c.count * self.diamond_cny,
                     c.msg_id, extra, mono, wall)

    def _chat(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        return Event(PLATFORM, self.room, EventKind.COMMENT, _user(pb.get_msg(f, 2)), pb.get_str(f, 3), 0.0,
                     f"dy:{msg_id}", {}, mono, wall)

    def _emoji_chat(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        return Event(PLATFORM, self.room, EventKind.COMMENT, _user(pb.get_msg(f, 2)), pb.get_str(f, 5), 0.0,
                     f"dy:{msg_id}", {"emoji_id": pb.get_int(f, 3)}, mono, wall)

    def _gift(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event | None:
        user = _user(pb.get_msg(f, 7))
        gift = pb.get_msg(f, 15) if 15 in f else {}
        gift_id = pb.get_int(f, 2) or pb.get_int(gift, 5)
        group_count = max(1, pb.get_int(f, 4))
        repeat = max(1, pb.get_int(f, 5))
        c = _Combo(user, gift_id, pb.get_str(gift, 16) if gift else "", pb.get_int(gift, 12) if gift else 0,
                   group_count * repeat, f"dy:{msg_id}", mono)
        is_combo = bool(gift) and pb.get_bool(gift, 10)
        if not is_combo:
            return self._gift_event(c, mono, wall)
        key = (user.id, gift_id, pb.get_int(f, 11))
        if pb.get_int(f, 9) == 1:  # repeatEnd: the combo is over, count it once with its final size
            self._combos.pop(key, None)
            return self._gift_event(c, mono, wall)
        self._combos[key] = c
        return None

    def _like(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        count = pb.get_int(f, 2)
        return Event(PLATFORM, self.room, EventKind.LIKE, _user(pb.get_msg(f, 5)), "", 0.0, f"dy:{msg_id}",
                     {"count": count, "total": pb.get_int(f, 3)}, mono, wall)

    def _member(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        return Event(PLATFORM, self.room, EventKind.ENTER, _user(pb.get_msg(f, 2)), "", 0.0, f"dy:{msg_id}",
                     {"member_count": pb.get_int(f, 3)}, mono, wall)

    def _social(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        action = pb.get_int(f, 4)
        user = _user(pb.get_msg(f, 2))
        if action == 1:
            return Event(PLATFORM, self.room, EventKind.FOLLOW, user, "", 0.0, f"dy:{msg_id}",
                         {"follow_count": pb.get_int(f, 6)}, mono, wall)
        return Event(PLATFORM, self.room, EventKind.SYSTEM, user, "", 0.0, f"dy:{msg_id}",
                     {"type": "share", "action": action}, mono, wall)

    def _user_seq(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        extra = {"type": "online", "online": pb.get_int(f, 3), "total_pv": pb.get_str(f, 11)}
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0.0, "", extra, mono, wall)

    def _control(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event | None:
        status = pb.get_int(f, 2)
        if status == 3:
            self._live(False)
            return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0.0, f"dy:{msg_id}", {"type": "ended"},
                         mono, wall)
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0.0, f"dy:{msg_id}",
                     {"type": "control", "status": status}, mono, wall)
