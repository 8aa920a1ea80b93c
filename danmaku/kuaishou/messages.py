"""Kuaishou web live frames (SocketMessage → gzip → SCWebFeedPush …) and the feed → Event mapping.

Every frame is a SocketMessage {payloadType=1, compressionType=2 (1 none, 2 gzip, 3 AES), payload=3}. The client
sends CS_ENTER_ROOM (200) and CS_HEARTBEAT (1); the server answers SC_ENTER_ROOM_ACK (300, with the heartbeat
interval), SC_HEARTBEAT_ACK (101), and pushes SC_FEED_PUSH (310: comments, likes, gifts, notices, shares and
the watching count). Gifts name a gift id only: their 快币 come from the operator's catalogue (gifts.py), an
unknown id is Money("kuaishou_gift:<id>", count) — a paid event the room's table has no rate for (valued at its
unrated stand-in and warned once). A combo repeats one gift feed with a growing comboCount under one mergeKey:
each feed counts only the gifts its comboCount adds, so a combo is counted once however its feeds arrive.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common.bounded import BoundedDict
from danmaku import pb
from danmaku.douyin.messages import gunzip
from danmaku.event import Event, EventKind, Money, User
from danmaku.kuaishou.gifts import GiftCatalogue
from danmaku.source import DecodeError, NeedsThread

PLATFORM = "kuaishou"

CS_HEARTBEAT, CS_ENTER_ROOM, CS_USER_EXIT = 1, 200, 202
SC_HEARTBEAT_ACK, SC_ERROR, SC_INFO = 101, 103, 105
SC_ENTER_ROOM_ACK, SC_AUTHOR_PAUSE, SC_AUTHOR_RESUME = 300, 301, 302
SC_FEED_PUSH, SC_LIVE_WATCHING_LIST = 310, 340
COMPRESSION_NONE, COMPRESSION_GZIP, COMPRESSION_AES = 1, 2, 3
# Pushes with nothing to say or count (red packs, guesses, PK, rides, bets, account and warning states …).
IGNORED = frozenset({102, 104, SC_INFO, 303, 304, 305, 306, 307, 308, 311, 312, 320, 321, 322, 323, 324, 325, 326,
                     327, 330, 350, 351, 352, 353, 354, 355, 360, 361, 370, 371, 380, 381, 390, 391, 412, 441, 442,
                     645, 758})


@dataclass(frozen=True, slots=True)
class SocketMessage:
    payload_type: int
    compression: int
    payload: bytes


def parse_socket_message(data: bytes) -> SocketMessage:
    f = pb.decode(data)
    if 1 not in f:
        raise DecodeError("shape", "SocketMessage without payloadType")
    return SocketMessage(pb.get_int(f, 1), pb.get_int(f, 2), pb.get_bytes(f, 3))


def encode_socket_message(payload_type: int, payload: bytes, compression: int = 0) -> bytes:
    fields: list[tuple[int, Any]] = [(1, payload_type)]
    if compression:
        fields.append((2, compression))
    fields.append((3, payload))
    return pb.encode(fields)


def enter_room(token: str, live_stream_id: str, page_id: str, reconnects: int = 0) -> bytes:
    body = pb.encode([(1, token), (2, live_stream_id), (3, reconnects), (7, page_id)])
    return encode_socket_message(CS_ENTER_ROOM, body)


def heartbeat(now_ms: int) -> bytes:
    return encode_socket_message(CS_HEARTBEAT, pb.encode([(1, now_ms)]))


def payload_bytes(msg: SocketMessage, limit: int, inline_limit: int | None = None) -> bytes:
    """The message's payload, inflated (gzip) or as sent; NeedsThread when it is too big for the event loop."""
    if msg.compression == COMPRESSION_AES:
        raise DecodeError("encrypted", f"payload type {msg.payload_type} is AES-encrypted (not supported)")
    if msg.compression == COMPRESSION_GZIP:
        return gunzip(msg.payload, limit, inline_limit)
    if inline_limit is not None and len(msg.payload) > inline_limit:
        raise NeedsThread
    return msg.payload


def enter_ack_heartbeat_ms(payload: bytes) -> int:
    """SCWebEnterRoomAck {minReconnectMs=1, maxReconnectMs=2, heartbeatIntervalMs=3}."""
    return pb.get_int(pb.decode(payload), 3)


def sc_error(payload: bytes) -> tuple[int, str]:
    """SCError {code=1, msg=2, subCode=3} [field numbers from public clients, unverified]."""
    try:
        f = pb.decode(payload)
        return pb.get_int(f, 1), pb.get_str(f, 2)
    except DecodeError:
        return 0, ""


def _user(f: pb.Fields, state: pb.Fields | None = None) -> User:
    """SimpleUserInfo {principalId=1, userName=2, headUrl=3}; LiveAudienceState {fansGroupIntimacyLevel=4,
    wealthGrade=7, badgeKey=8}."""
    level = medal = 0
    if state:
        level, medal = pb.get_int(state, 7), pb.get_int(state, 4)
    return User(id=pb.get_str(f, 1), name=pb.get_str(f, 2), level=level, medal_level=medal, face=pb.get_str(f, 3))


class KuaishouNormalizer:
    def __init__(self, room: str, error: Callable[[str, str], None], gifts: GiftCatalogue):
        self.room = room
        self._error = error
        self.gifts = gifts
        self._combos: BoundedDict[str, int] = BoundedDict(8192)  # mergeKey → comboCount counted
        self._seen: BoundedDict[str, None] = BoundedDict(8192)  # feed ids handed on (a reconnect replays)
        self._watching = ""
        self.late_combo_frames = 0

    def feed(self, payload: bytes, out: list[Event]) -> None:
        """SCWebFeedPush {displayWatchingCount=1, displayLikeCount=2, commentFeeds=5, comboCommentFeed=7,
        likeFeeds=8, giftFeeds=9, systemNoticeFeeds=11, shareFeeds=12} → Events."""
        f = pb.decode(payload)
        mono, wall = time.monotonic(), time.time()
        for num, handler in ((5, self._comment), (7, self._combo_comment), (8, self._like), (9, self._gift),
                             (11, self._notice), (12, self._share)):
            for raw in f.get(num, ()):
                if not isinstance(raw, bytes):
                    self._error("protobuf", f"feed field {num} is not a message")
                    continue
                try:
                    ev = handler(pb.decode(raw), mono, wall)
                except DecodeError as exc:
                    self._error(exc.kind, f"feed field {num}: {exc.detail}")
                    continue
                if ev is not None:
                    out.append(ev)
        watching = pb.get_str(f, 1)
        if watching and watching != self._watching:
            self._watching = watching
            out.append(Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "",
                             {"type": "online", "display": watching, "likes": pb.get_str(f, 2)}, mono, wall))

    def watching_users(self, payload: bytes) -> Event:
        """SCWebLiveWatchingUsers {watchingUser=1, displayWatchingCount=2}."""
        f = pb.decode(payload)
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "",
                     {"type": "online", "display": pb.get_str(f, 2), "listed": len(f.get(1, ()))})

    def _repeat(self, fid: str) -> bool:
        return bool(fid) and self._seen.seen(fid)

    def _comment(self, f: pb.Fields, mono: float, wall: float) -> Event | None:
        """WebCommentFeed {id=1, user=2, content=3, senderState=8}."""
        fid = pb.get_str(f, 1)
        if self._repeat(fid):
            return None
        state = pb.get_msg(f, 8) if 8 in f else None
        return Event(PLATFORM, self.room, EventKind.COMMENT, _user(pb.get_msg(f, 2), state), pb.get_str(f, 3), 0,
                     f"ks:{fid}" if fid else "", {}, mono, wall)

    def _combo_comment(self, f: pb.Fields, mono: float, wall: float) -> Event:
        # Many viewers sent the same words (WebComboCommentFeed {id=1, content=2, comboCount=3}): no one user.
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, pb.get_str(f, 2), 0, "",
                     {"type": "combo_comment", "count": pb.get_int(f, 3)}, mono, wall)

    def _like(self, f: pb.Fields, mono: float, wall: float) -> Event | None:
        fid = pb.get_str(f, 1)
        if self._repeat(fid):
            return None
        return Event(PLATFORM, self.room, EventKind.LIKE, _user(pb.get_msg(f, 2)), "", 0,
                     f"ks:{fid}" if fid else "", {"count": 1}, mono, wall)

    def _gift(self, f: pb.Fields, mono: float, wall: float) -> Event | None:
        """WebGiftFeed {id=1, user=2, giftId=4, mergeKey=6, batchSize=7, comboCount=8}."""
        gift_id = pb.get_int(f, 4)
        batch = max(1, pb.get_int(f, 7))
        combo = max(1, pb.get_int(f, 8))
        key = pb.get_str(f, 6) or pb.get_str(f, 1)
        counted = self._combos.get(key, 0) if key else 0
        if combo <= counted:
            self.late_combo_frames += 1  # a step already counted (sent twice, or replayed after a reconnect)
            return None
        if key:
            self._combos[key] = combo
        count = (combo - counted) * batch
        gift = self.gifts.get(gift_id)
        extra: dict[str, Any] = {"gift_id": gift_id, "gift_name": gift.name if gift is not None else "",
                                 "count": count, "combo": combo, "batch": batch}
        if gift is not None:
            money = Money("kuaishou_coin", gift.coins * count)
            extra["coins"] = gift.coins * count
        else:
            money = Money(f"kuaishou_gift:{gift_id}", count)
        return Event(PLATFORM, self.room, EventKind.GIFT, _user(pb.get_msg(f, 2)), "", 0,
                     f"ks:{key}:{combo}" if key else "", extra, mono, wall, money)

    def _notice(self, f: pb.Fields, mono: float, wall: float) -> Event:
        # WebSystemNoticeFeed {id=1, user=2, time=3, content=4}
        user = _user(pb.get_msg(f, 2)) if 2 in f else None
        return Event(PLATFORM, self.room, EventKind.SYSTEM, user, pb.get_str(f, 4), 0, "", {"type": "notice"},
                     mono, wall)

    def _share(self, f: pb.Fields, mono: float, wall: float) -> Event:
        # WebShareFeed {id=1, user=2, time=3, thirdPartyPlatform=4}
        return Event(PLATFORM, self.room, EventKind.SYSTEM, _user(pb.get_msg(f, 2)), "", 0, "",
                     {"type": "share", "to": pb.get_int(f, 4)}, mono, wall)
