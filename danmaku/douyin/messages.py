"""Douyin webcast frames (PushFrame → gzip → Response → Message) and the Webcast*Message → Event mapping.

Gifts are combo-aware: a combo repeats one GiftMessage per step. Its identity is (sender, gift id, groupId),
which is the same on every socket, so it is counted exactly once whatever order its frames arrive in and
across reconnects: on its end frame (repeatEnd == 1), or `combo_timeout_s` after its last step when the end
frame never came (the owner calls `flush` on a timer; see `next_deadline`). Frames of a combo already
counted are dropped. Every message id is remembered for a while too: the server replays recent messages
to a new connection. Gifts carry their diamonds as Money("douyin_diamond", n); the Source values them with the
room's money table (one diamond = 0.1 CNY by default).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common.bounded import BoundedDict
from danmaku import pb
from danmaku.event import Event, EventKind, Money, User
from danmaku.source import DecodeError, NeedsThread

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


def gunzip(data: bytes, limit: int, inline_limit: int | None = None) -> bytes:
    """gzip (or zlib) payload → bytes, refusing more than `limit` inflated bytes.

    With `inline_limit`, gives up with NeedsThread as soon as the output passes it (the caller is on the
    event loop and hands big payloads to a thread, so a decompression bomb costs the loop ~a millisecond)."""
    cap = limit if inline_limit is None else min(limit, inline_limit)
    z = zlib.decompressobj(wbits=47)  # 32 + 15: accept gzip or zlib headers
    try:
        out = z.decompress(data, cap + 1)
    except zlib.error as exc:
        raise DecodeError("bad_compression", str(exc)) from exc
    if len(out) > cap or z.unconsumed_tail:
        if cap < limit:
            raise NeedsThread
        raise DecodeError("too_large", f"inflated payload over {limit} bytes")
    if not z.eof:
        raise DecodeError("bad_compression", "gzip stream ends early")
    return out


@dataclass(frozen=True, slots=True)
class Response:
    messages: list[tuple[str, bytes, int]]  # (method, payload, msg id)
    internal_ext: str
    need_ack: bool


def decode_payload(frame: PushFrame, limit: int, inline_limit: int | None = None) -> Response:
    """A `msg` frame's payload (gzip or plain) → Response; NeedsThread when it is too big for the loop."""
    payload = frame.payload
    if frame.payload_encoding == "gzip" or payload[:2] == b"\x1f\x8b":
        payload = gunzip(payload, limit, inline_limit)
    elif inline_limit is not None and len(payload) > inline_limit:
        raise NeedsThread
    return parse_response(payload)


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


# How long a counted combo's identity blocks later frames of it. With a groupId the identity is unique, so
# this is long; without one (groupId 0) the same sender may start a new combo of the same gift soon after.
_CLOSED_WITH_GROUP_S = 600.0


@dataclass
class _Combo:
    user: User
    gift_id: int
    group_id: int
    name: str
    diamonds: int
    count: int
    seen_mono: float  # the last step

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.user.id, self.gift_id, self.group_id)

    @property
    def msg_id(self) -> str:
        return f"dyg:{self.user.id}:{self.gift_id}:{self.group_id}"


class DouyinNormalizer:
    def __init__(self, room: str, error: Callable[[str, str], None], unknown: Callable[[str], None],
                 live: Callable[[bool], None], combo_timeout_s: float = 10.0):
        self.room = room
        self._error, self._unknown, self._live = error, unknown, live
        self.combo_timeout_s = combo_timeout_s
        self._combos: dict[tuple[str, int, int], _Combo] = {}  # open combos
        self._closed: BoundedDict[tuple[str, int, int], float] = BoundedDict(4096)  # counted → when
        self._seen_ids: BoundedDict[int, None] = BoundedDict(4096)  # message ids handed on
        self.late_combo_frames = 0
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
            if msg_id and self._seen_ids.seen(msg_id):
                continue  # replayed to a new connection (need_persist_msg_count) or sent twice
            try:
                ev = handler(pb.decode(payload), msg_id, mono, wall)
            except DecodeError as exc:
                self._error(exc.kind, f"{method}: {exc.detail}")
                continue
            if ev is not None:
                out.append(ev)
        self.flush(out, mono, wall)

    def next_deadline(self) -> float | None:
        """Monotonic time at which the oldest open combo is due to be counted without its end frame."""
        if not self._combos:
            return None
        return min(c.seen_mono for c in self._combos.values()) + self.combo_timeout_s

    def flush(self, out: list[Event], mono: float | None = None, wall: float | None = None,
              force: bool = False) -> None:
        """Counts combos whose end frame did not come within combo_timeout_s of their last step (or every open
        combo, with force: the source is stopping for good). A reconnect is no reason: the end may still come."""
        if not self._combos:
            return
        mono = time.monotonic() if mono is None else mono
        wall = time.time() if wall is None else wall
        for key, c in list(self._combos.items()):
            if force or mono - c.seen_mono >= self.combo_timeout_s:
                del self._combos[key]
                out.append(self._close(c, mono, wall, ended=False))

    def _is_closed(self, key: tuple[str, int, int], mono: float) -> bool:
        at = self._closed.get(key)
        if at is None:
            return False
        return mono - at < (_CLOSED_WITH_GROUP_S if key[2] else self.combo_timeout_s)

    def _close(self, c: _Combo, mono: float, wall: float, ended: bool) -> Event:
        self._closed[c.key] = mono
        extra: dict[str, Any] = {"gift_name": c.name, "gift_id": c.gift_id, "count": c.count,
                                 "diamonds": c.diamonds * c.count, "combo_id": str(c.group_id)}
        if not ended:
            extra["combo_end_missing"] = True
        return Event(PLATFORM, self.room, EventKind.GIFT, c.user, "", 0, c.msg_id, extra, mono, wall,
                     Money("douyin_diamond", c.diamonds * c.count))

    def _chat(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        return Event(PLATFORM, self.room, EventKind.COMMENT, _user(pb.get_msg(f, 2)), pb.get_str(f, 3), 0,
                     f"dy:{msg_id}", {}, mono, wall)

    def _emoji_chat(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        return Event(PLATFORM, self.room, EventKind.COMMENT, _user(pb.get_msg(f, 2)), pb.get_str(f, 5), 0,
                     f"dy:{msg_id}", {"emoji_id": pb.get_int(f, 3)}, mono, wall)

    def _gift(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event | None:
        user = _user(pb.get_msg(f, 7))
        gift = pb.get_msg(f, 15) if 15 in f else {}
        gift_id = pb.get_int(f, 2) or pb.get_int(gift, 5)
        group_count = max(1, pb.get_int(f, 4))
        repeat = max(1, pb.get_int(f, 5))
        name = pb.get_str(gift, 16) if gift else ""
        diamonds = pb.get_int(gift, 12) if gift else 0
        count = group_count * repeat
        is_combo = bool(gift) and pb.get_bool(gift, 10)
        if not is_combo:
            extra: dict[str, Any] = {"gift_name": name, "gift_id": gift_id, "count": count,
                                     "diamonds": diamonds * count}
            return Event(PLATFORM, self.room, EventKind.GIFT, user, "", 0, f"dy:{msg_id}", extra, mono, wall,
                         Money("douyin_diamond", diamonds * count))
        c = _Combo(user, gift_id, pb.get_int(f, 11), name, diamonds, count, mono)
        key = c.key
        if self._is_closed(key, mono):
            self.late_combo_frames += 1  # a step or a second end frame of a combo already counted
            return None
        open_ = self._combos.get(key)
        if open_ is not None:
            # Steps may arrive out of order (a replay after a reconnect): the combo is as big as its biggest step.
            c.count = max(c.count, open_.count)
            c.seen_mono = max(mono, open_.seen_mono)
        if pb.get_int(f, 9) == 1:  # repeatEnd: the combo is over, count it once with its final size
            self._combos.pop(key, None)
            return self._close(c, mono, wall, ended=True)
        self._combos[key] = c
        return None

    def _like(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        count = pb.get_int(f, 2)
        return Event(PLATFORM, self.room, EventKind.LIKE, _user(pb.get_msg(f, 5)), "", 0, f"dy:{msg_id}",
                     {"count": count, "total": pb.get_int(f, 3)}, mono, wall)

    def _member(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        return Event(PLATFORM, self.room, EventKind.ENTER, _user(pb.get_msg(f, 2)), "", 0, f"dy:{msg_id}",
                     {"member_count": pb.get_int(f, 3)}, mono, wall)

    def _social(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        action = pb.get_int(f, 4)
        user = _user(pb.get_msg(f, 2))
        if action == 1:
            return Event(PLATFORM, self.room, EventKind.FOLLOW, user, "", 0, f"dy:{msg_id}",
                         {"follow_count": pb.get_int(f, 6)}, mono, wall)
        return Event(PLATFORM, self.room, EventKind.SYSTEM, user, "", 0, f"dy:{msg_id}",
                     {"type": "share", "action": action}, mono, wall)

    def _user_seq(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event:
        extra = {"type": "online", "online": pb.get_int(f, 3), "total_pv": pb.get_str(f, 11)}
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "", extra, mono, wall)

    def _control(self, f: pb.Fields, msg_id: int, mono: float, wall: float) -> Event | None:
        status = pb.get_int(f, 2)
        if status == 3:
            self._live(False)
            return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, f"dy:{msg_id}", {"type": "ended"},
                         mono, wall)
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, f"dy:{msg_id}",
                     {"type": "control", "status": status}, mono, wall)
