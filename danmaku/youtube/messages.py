"""YouTube Data API v3 liveChatMessage resources → Events, and the API's error bodies → a reason.

Money: a Super Chat or Super Sticker carries `amountMicros` (a uint64, sent as a JSON string) in `currency`
(ISO 4217): Money(currency, micros, 6). A new member, a milestone (renewal) message and a gift of N memberships
carry Money("youtube_membership", months or N): the API does not say a level's price, so the room's money table
does (money.units.youtube_membership). A received gift membership is a SYSTEM event: its gift was counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from common.bounded import BoundedDict
from danmaku.event import Event, EventKind, Money, User
from danmaku.source import DecodeError

PLATFORM = "youtube"
MICRO_EXP = 6

# Types that carry nothing to say or count (tombstone: a deleted message's placeholder).
QUIET = frozenset({"tombstone"})


def _str(d: dict[str, Any], key: str) -> str:
    v = d.get(key)
    if v is None:
        return ""
    if not isinstance(v, str):
        raise DecodeError("shape", f"{key} is not a string")
    return v


def _uint(d: dict[str, Any], key: str, default: int = 0) -> int:
    v = d.get(key)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, (int, str)) or (isinstance(v, int) and v < 0) \
            or (isinstance(v, str) and not (v.isascii() and v.isdigit())):
        raise DecodeError("shape", f"{key}={str(v)[:20]!r} is not an unsigned integer")
    return int(v)


def _obj(d: dict[str, Any], key: str) -> dict[str, Any]:
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise DecodeError("shape", f"{key} is not an object")
    return v


def published_at(snippet: dict[str, Any]) -> float | None:
    """snippet.publishedAt (RFC 3339) as a Unix time; None when absent or unreadable."""
    raw = snippet.get("publishedAt")
    if not isinstance(raw, str):
        return None
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def error_reason(body: Any) -> tuple[str, str]:
    """(reason, message) of a Google API error body {"error": {"errors": [{"reason": …}], "message": …}}."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return "", ""
    message = err.get("message") if isinstance(err.get("message"), str) else ""
    errors = err.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        reason = errors[0].get("reason")
        if isinstance(reason, str):
            return reason, message
    details = err.get("details")  # the newer shape: {"details": [{"reason": "..."}]}
    if isinstance(details, list):
        for det in details:
            if isinstance(det, dict) and isinstance(det.get("reason"), str):
                return det["reason"], message
    status = err.get("status")
    return (status if isinstance(status, str) else ""), message


class YouTubeNormalizer:
    def __init__(self, room: str, error: Callable[[str, str], None], unknown: Callable[[str], None],
                 live: Callable[[bool], None]):
        self.room = room
        self._error, self._unknown, self._live = error, unknown, live
        self._seen: BoundedDict[str, None] = BoundedDict(8192)
        self._super_chats: BoundedDict[str, None] = BoundedDict(4096)  # ids handed on, to withdraw on delete
        self._handlers: dict[str, Callable[[dict[str, Any], dict[str, Any], User | None, str, float, float],
                                           Event | None]] = {
            "textMessageEvent": self._text,
            "superChatEvent": self._super_chat,
            "superStickerEvent": self._super_sticker,
            "fanFundingEvent": self._fan_funding,
            "newSponsorEvent": self._new_member,
            "memberMilestoneChatEvent": self._milestone,
            "membershipGiftingEvent": self._gifting,
            "giftMembershipReceivedEvent": self._gift_received,
            "messageDeletedEvent": self._deleted,
            "userBannedEvent": self._banned,
            "chatEndedEvent": self._ended,
            "sponsorOnlyModeStartedEvent": self._notice,
            "sponsorOnlyModeEndedEvent": self._notice,
            "pollEvent": self._notice,
        }

    def feed(self, items: Any, out: list[Event], since: float | None = None) -> int:
        """Appends the Events of a page's `items` (oldest first); with `since`, items published before it are
        history and skipped. Returns how many items were read (chat or not)."""
        if not isinstance(items, list):
            self._error("shape", "items is not a list")
            return 0
        mono, wall = time.monotonic(), time.time()
        for item in items:
            try:
                ev = self._item(item, since, mono, wall)
            except DecodeError as exc:
                self._error(exc.kind, exc.detail)
                continue
            if ev is not None:
                out.append(ev)
        return len(items)

    def _item(self, item: Any, since: float | None, mono: float, wall: float) -> Event | None:
        if not isinstance(item, dict):
            raise DecodeError("shape", "a chat item is not an object")
        snippet = _obj(item, "snippet")
        kind = _str(snippet, "type")
        mid = _str(item, "id")
        if not kind:
            raise DecodeError("shape", "snippet.type missing")
        if mid and self._seen.seen(mid):
            return None
        if since is not None:
            at = published_at(snippet)
            if at is not None and at < since:
                return None
        handler = self._handlers.get(kind)
        if handler is None:
            if kind not in QUIET:
                self._unknown(kind)
            return None
        author = _obj(item, "authorDetails")
        return handler(snippet, author, self._user(author, snippet) if author else None, mid, mono, wall)

    @staticmethod
    def _user(a: dict[str, Any], snippet: dict[str, Any]) -> User:
        return User(id=_str(a, "channelId") or _str(snippet, "authorChannelId"), name=_str(a, "displayName"),
                    medal_name="member" if a.get("isChatSponsor") is True else "", face=_str(a, "profileImageUrl"))

    @staticmethod
    def _roles(a: dict[str, Any]) -> dict[str, Any]:
        roles = [r for r, key in (("owner", "isChatOwner"), ("moderator", "isChatModerator"),
                                  ("member", "isChatSponsor"), ("verified", "isVerified")) if a.get(key) is True]
        return {"roles": roles} if roles else {}

    def _ev(self, kind: EventKind, user: User | None, text: str, mid: str, extra: dict[str, Any], mono: float,
            wall: float, money: Money | None = None) -> Event:
        return Event(PLATFORM, self.room, kind, user, text, 0, f"yt:{mid}" if mid else "", extra, mono, wall, money)

    def _text(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
              wall: float) -> Event:
        text = _str(_obj(s, "textMessageDetails"), "messageText") or _str(s, "displayMessage")
        return self._ev(EventKind.COMMENT, user, text, mid, self._roles(a), mono, wall)

    def _paid(self, d: dict[str, Any], what: str) -> tuple[Money, dict[str, Any]]:
        currency = _str(d, "currency")
        if len(currency) != 3 or not currency.isalpha():
            raise DecodeError("shape", f"{what}.currency {currency[:10]!r} is not a currency code")
        money = Money(currency.upper(), _uint(d, "amountMicros"), MICRO_EXP)
        return money, {"amount_display": _str(d, "amountDisplayString"), "tier": _uint(d, "tier")}

    def _super_chat(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
                    wall: float) -> Event:
        d = _obj(s, "superChatDetails")
        money, extra = self._paid(d, "superChatDetails")
        extra.update(sc_id=mid, **self._roles(a))
        if mid:
            self._super_chats[mid] = None
        return self._ev(EventKind.SUPER_CHAT, user, _str(d, "userComment"), mid, extra, mono, wall, money)

    def _super_sticker(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
                       wall: float) -> Event:
        d = _obj(s, "superStickerDetails")
        money, extra = self._paid(d, "superStickerDetails")
        meta = _obj(d, "superStickerMetadata")
        extra.update(sc_id=mid, sticker=_str(meta, "altText"), sticker_id=_str(meta, "stickerId"), **self._roles(a))
        if mid:
            self._super_chats[mid] = None
        return self._ev(EventKind.SUPER_CHAT, user, "", mid, extra, mono, wall, money)

    def _fan_funding(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
                     wall: float) -> Event:
        d = _obj(s, "fanFundingEventDetails")  # the Super Chat's predecessor, still in the schema
        money, extra = self._paid(d, "fanFundingEventDetails")
        extra["sc_id"] = mid
        return self._ev(EventKind.SUPER_CHAT, user, _str(d, "userComment"), mid, extra, mono, wall, money)

    def _new_member(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
                    wall: float) -> Event:
        d = _obj(s, "newSponsorDetails")
        extra = {"type": "new_member", "level": _str(d, "memberLevelName"), "upgrade": d.get("isUpgrade") is True,
                 "count": 1}
        return self._ev(EventKind.GUARD, user, "", mid, extra, mono, wall, Money("youtube_membership", 1))

    def _milestone(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
                   wall: float) -> Event:
        d = _obj(s, "memberMilestoneChatDetails")
        extra = {"type": "milestone", "level": _str(d, "memberLevelName"), "months": _uint(d, "memberMonth"),
                 "count": 1}
        return self._ev(EventKind.GUARD, user, _str(d, "userComment"), mid, extra, mono, wall,
                        Money("youtube_membership", 1))

    def _gifting(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
                 wall: float) -> Event:
        d = _obj(s, "membershipGiftingDetails")
        count = _uint(d, "giftMembershipsCount", 1)
        extra = {"type": "gift_memberships", "level": _str(d, "giftMembershipsLevelName"), "count": count}
        return self._ev(EventKind.GUARD, user, "", mid, extra, mono, wall, Money("youtube_membership", count))

    def _gift_received(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
                       wall: float) -> Event:
        d = _obj(s, "giftMembershipReceivedDetails")
        extra = {"type": "gift_membership_received", "level": _str(d, "memberLevelName"),
                 "gifter_id": _str(d, "gifterChannelId"),
                 "gift_id": _str(d, "associatedMembershipGiftingMessageId")}
        return self._ev(EventKind.SYSTEM, user, "", mid, extra, mono, wall)

    def _deleted(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
                 wall: float) -> Event:
        target = _str(_obj(s, "messageDeletedDetails"), "deletedMessageId")
        if not target:
            raise DecodeError("shape", "messageDeletedEvent without deletedMessageId")
        kind = "sc_delete" if target in self._super_chats else "msg_delete"
        return self._ev(EventKind.SYSTEM, None, "", mid, {"type": kind, "ids": [target]}, mono, wall)

    def _banned(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
                wall: float) -> Event:
        d = _obj(s, "userBannedDetails")
        who = _obj(d, "bannedUserDetails")
        extra = {"type": "user_ban", "user_id": _str(who, "channelId"), "name": _str(who, "displayName"),
                 "ban_type": _str(d, "banType"), "duration_s": _uint(d, "banDurationSeconds")}
        return self._ev(EventKind.SYSTEM, None, "", mid, extra, mono, wall)

    def _ended(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
               wall: float) -> Event:
        self._live(False)
        return self._ev(EventKind.SYSTEM, None, "", mid, {"type": "ended"}, mono, wall)

    def _notice(self, s: dict[str, Any], a: dict[str, Any], user: User | None, mid: str, mono: float,
                wall: float) -> Event:
        return self._ev(EventKind.SYSTEM, user, _str(s, "displayMessage"), mid, {"type": _str(s, "type")}, mono,
                        wall)
