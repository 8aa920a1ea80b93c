"""Bilibili web live commands (DANMU_MSG, SEND_GIFT(_V2), SUPER_CHAT_MESSAGE, GUARD_BUY, …) → typed Events.

Values are exact milli-yuan: one gold coin is 1 (1000 = 1 CNY); silver gifts are free (0, never revenue);
the super chat price is in yuan (× 1000). A gift is identified by its tid, so one seen twice counts once.
"""

from __future__ import annotations

import base64
import binascii
import json
import json.scanner
import time
from collections.abc import Callable
from typing import Any

from common.bounded import BoundedDict
from danmaku import pb
from danmaku.event import Event, EventKind, Money, User, cny_to_milli
from danmaku.source import DecodeError

PLATFORM = "bilibili"

# INTERACT_WORD msg_type → kind (3 = share is reported as a system event)
_INTERACT = {1: EventKind.ENTER, 2: EventKind.FOLLOW, 4: EventKind.FOLLOW, 5: EventKind.FOLLOW, 6: EventKind.LIKE}

# Commands we know and deliberately do not turn into Events (not "unknown").
IGNORED = frozenset(
    {
        "ENTRY_EFFECT", "ENTRY_EFFECT_MUST_RECEIVE", "ONLINE_RANK_V2", "ONLINE_RANK_V3", "ONLINE_RANK_TOP3",
        "ONLINE_RANK_COUNT", "NOTICE_MSG", "WIDGET_BANNER", "STOP_LIVE_ROOM_LIST", "ROOM_REAL_TIME_MESSAGE_UPDATE",
        "HOT_RANK_CHANGED", "HOT_RANK_CHANGED_V2", "DM_INTERACTION", "POPULARITY_RED_POCKET_START",
        "POPULARITY_RED_POCKET_NEW", "POPULARITY_RED_POCKET_WINNER_LIST", "ROOM_CHANGE", "GUARD_HONOR_THOUSAND",
        "USER_TOAST_MSG", "LIKE_INFO_V3_NOTICE", "PK_BATTLE_PROCESS", "PK_BATTLE_START", "PK_BATTLE_END",
        "AREA_RANK_CHANGED", "COMMON_NOTICE_DANMAKU", "SYS_MSG", "LIVE_INTERACTIVE_GAME", "WIDGET_GIFT_STAR_PROCESS",
        "RANK_CHANGED", "RANK_CHANGED_V2", "GIFT_STAR_PROCESS", "SPREAD_SHOW_FEET_V2", "MESSAGEBOX_USER_GAIN_MEDAL",
        "MESSAGEBOX_USER_MEDAL_CHANGE", "ROOM_SKIN_MSG", "LIVE_MULTI_VIEW_EVENT_CHANGED", "RECOMMEND_CARD",
        "PLAY_TAG", "ANCHOR_LOT_START", "ANCHOR_LOT_END", "ANCHOR_LOT_AWARD", "VOICE_JOIN_LIST", "FULL_SCREEN_SPECIAL_EFFECT",
    }
)


_scan_once = json.scanner.make_scanner(json.JSONDecoder())


def loads(body: bytes) -> Any:
    """json.loads for one packet body, minus its encoding sniffing and regex whitespace passes (hot path).

    Raises UnicodeDecodeError or ValueError (RecursionError for absurd nesting is turned into ValueError).
    """
    text = body.decode("utf-8")
    try:
        obj, end = _scan_once(text, 0)
    except StopIteration:
        try:
            return json.loads(text)  # leading whitespace, or not JSON at all: let json say which
        except RecursionError as exc:
            raise ValueError("JSON nested too deeply") from exc
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc
    if end != len(text) and text[end:].strip():
        raise ValueError(f"extra data after the JSON value at {end}")
    return obj


def _int(x: Any) -> int:
    if x is None or x == "":
        return 0
    return int(x)


def _str(x: Any) -> str:
    return "" if x is None else str(x)


class WebNormalizer:
    """Turns command bodies (JSON bytes from op-5 packets) into Events appended to a list."""

    def __init__(
        self,
        room: str,
        error: Callable[[str, str], None],
        unknown: Callable[[str], None] = lambda cmd: None,
        live: Callable[[bool], None] = lambda live: None,
    ):
        self.room = room
        self._error = error
        self._unknown = unknown
        self._live = live
        # Recently counted money ids (gift tid, super chat id, guard purchase): a gift seen twice — V1 and V2
        # forms, a JPN copy, a guard announced as GUARD_BUY and USER_TOAST_MSG_V2 — counts once.
        self._recent: BoundedDict[str, None] = BoundedDict(4096)
        self._handlers: dict[str, Callable[[dict[str, Any], float, float], Event | list[Event] | None]] = {
            "DANMU_MSG": self._danmu,
            "DANMU_MSG_MIRROR": self._danmu,
            "SEND_GIFT": self._gift,
            "SEND_GIFT_V2": self._gift_v2,
            "COMBO_SEND": self._combo,
            "SUPER_CHAT_MESSAGE": self._super_chat,
            "SUPER_CHAT_MESSAGE_JPN": self._super_chat,
            "SUPER_CHAT_MESSAGE_DELETE": self._super_chat_delete,
            "GUARD_BUY": self._guard_buy,
            "USER_TOAST_MSG_V2": self._user_toast_v2,
            "INTERACT_WORD": self._interact,
            "INTERACT_WORD_V2": self._interact_v2,
            "LIKE_INFO_V3_CLICK": self._like_click,
            "LIKE_INFO_V3_UPDATE": self._like_update,
            "WATCHED_CHANGE": self._watched,
            "LIVE": self._live_start,
            "PREPARING": self._preparing,
        }

    def feed(self, bodies: list[bytes], out: list[Event]) -> int:
        """Decodes each body; returns how many were well-formed commands (known or not)."""
        mono, wall = time.monotonic(), time.time()
        handlers = self._handlers
        good = 0
        for body in bodies:
            try:
                obj = loads(body)
            except UnicodeDecodeError as exc:
                self._error("utf8", str(exc))
                continue
            except ValueError as exc:
                self._error("json", str(exc))
                continue
            if type(obj) is not dict:
                self._error("shape", "command is not a JSON object")
                continue
            cmd = obj.get("cmd")
            if type(cmd) is not str:
                self._error("shape", "command has no 'cmd' string")
                continue
            good += 1
            handler = handlers.get(cmd)
            if handler is None:
                i = cmd.find(":")
                if i >= 0:
                    cmd = cmd[:i]
                    handler = handlers.get(cmd)
                if handler is None:
                    if cmd not in IGNORED:
                        self._unknown(cmd)
                    continue
            try:
                ev = handler(obj, mono, wall)
            except DecodeError as exc:
                self._error(exc.kind, f"{cmd}: {exc.detail}")
                continue
            except (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError) as exc:
                self._error("shape", f"{cmd}: {type(exc).__name__}: {exc}")
                continue
            if ev is None:
                continue
            if type(ev) is list:
                out.extend(ev)
            else:
                out.append(ev)  # type: ignore[arg-type]
        return good

    # ------------------------------------------------------------ comments

    def _danmu(self, obj: dict[str, Any], mono: float, wall: float) -> Event:
        # The hottest path (most of a busy room's traffic): plain indexing and positional constructors.
        info = obj["info"]
        meta = info[0]
        uinfo = info[2]
        medal = info[3]
        uid = uinfo[0]
        face = ""
        if len(meta) > 15:
            block = meta[15]
            if type(block) is dict:
                user_block = block.get("user")
                if type(user_block) is dict:
                    base = user_block.get("base")
                    if type(base) is dict:
                        face = base.get("face") or ""
        level = info[4][0] if len(info) > 4 and info[4] else 0
        guard = info[7] if len(info) > 7 else 0
        name = uinfo[1]
        text = info[1]
        if type(text) is not str or type(name) is not str or type(face) is not str:
            raise DecodeError("shape", "DANMU_MSG text/name/face is not a string")
        if medal:
            m_level, m_name = medal[0], medal[1]
            user = User(str(uid), name, level if type(level) is int else _int(level), m_name if type(m_name) is str
                        else _str(m_name), m_level if type(m_level) is int else _int(m_level),
                        guard if type(guard) is int else _int(guard), face)
        else:
            user = User(str(uid), name, level if type(level) is int else _int(level), "", 0,
                        guard if type(guard) is int else _int(guard), face)
        extra: dict[str, Any] = {"dm_type": meta[12] if len(meta) > 12 else 0}
        if obj["cmd"].startswith("DANMU_MSG_MIRROR"):
            extra["mirror"] = True
        return Event(
            PLATFORM, self.room, EventKind.COMMENT, user, text, 0, f"dm:{uid}:{meta[4]}:{meta[5]}", extra, mono, wall
        )

    # ------------------------------------------------------------ gifts

    def _gift(self, obj: dict[str, Any], mono: float, wall: float) -> Event | None:
        d = obj["data"]
        # tid names one gift; rnd (the fallback id) may be shared by the sends of one batch, so only tid dedups.
        tid = _str(d.get("tid") or "")
        if tid and self._recent.seen("gift:" + tid):
            return None
        tid = tid or _str(d.get("rnd") or "")
        medal = d.get("medal_info") or {}
        user = User(
            id=str(d["uid"]),
            name=_str(d.get("uname")),
            medal_name=_str(medal.get("medal_name")),
            medal_level=_int(medal.get("medal_level")),
            guard_level=_int(d.get("guard_level")),
            face=_str(d.get("face")),
        )
        num = _int(d.get("num"))
        paid = d.get("coin_type") == "gold"
        total = _int(d.get("total_coin")) or _int(d.get("price")) * num
        extra: dict[str, Any] = {
            "gift_name": _str(d.get("giftName")),
            "gift_id": _int(d.get("giftId")),
            "count": num,
            "coin_type": _str(d.get("coin_type")),
        }
        blind = d.get("blind_gift")
        if blind:
            extra["blind_gift"] = _str(blind.get("original_gift_name"))
        return Event(
            PLATFORM, self.room, EventKind.GIFT, user, "", total if paid else 0,
            f"gift:{tid}", extra, mono, wall, Money("bilibili_gold" if paid else "bilibili_silver", total),
        )

    def _gift_v2(self, obj: dict[str, Any], mono: float, wall: float) -> list[Event]:
        msg = pb.decode(_b64(obj["data"]["pb"]))
        medal = pb.get_msg(msg, 8) if 8 in msg else {}
        blind = pb.get_msg(msg, 9) if 9 in msg else {}
        user = User(
            id=str(pb.get_int(msg, 1)),
            name=pb.get_str(msg, 2),
            medal_name=pb.get_str(medal, 6) if medal else "",
            medal_level=pb.get_int(medal, 5) if medal else 0,
            guard_level=pb.get_int(msg, 5),
            face=pb.get_str(msg, 3),
        )
        events = []
        for g in pb.get_msgs(msg, 10):
            num = pb.get_int(g, 3)
            coin_type = pb.get_str(g, 8)
            total = pb.get_int(g, 7) or pb.get_int(g, 5) * num
            extra: dict[str, Any] = {
                "gift_name": pb.get_str(g, 2),
                "gift_id": pb.get_int(g, 1),
                "count": num,
                "coin_type": coin_type,
            }
            if blind:
                extra["blind_gift"] = pb.get_str(blind, 3)
            tid = pb.get_str(g, 9)
            if tid and self._recent.seen("gift:" + tid):
                continue
            tid = tid or str(pb.get_int(g, 12))
            events.append(
                Event(
                    PLATFORM, self.room, EventKind.GIFT, user, "", total if coin_type == "gold" else 0,
                    f"gift:{tid}", extra, mono, wall,
                    Money("bilibili_gold" if coin_type == "gold" else "bilibili_silver", total),
                )
            )
        return events

    def _combo(self, obj: dict[str, Any], mono: float, wall: float) -> Event:
        # Combo progress; the gifts themselves arrive as SEND_GIFT, so this carries no value (no double count).
        d = obj["data"]
        user = User(id=str(d.get("uid", "")), name=_str(d.get("uname")))
        extra = {
            "type": "combo",
            "gift_name": _str(d.get("gift_name")),
            "combo_num": _int(d.get("combo_num")),
            "total_num": _int(d.get("total_num")),
            "combo_id": _str(d.get("batch_combo_id")),
        }
        return Event(PLATFORM, self.room, EventKind.SYSTEM, user, "", 0, "", extra, mono, wall)

    # ------------------------------------------------------------ super chat and guards

    def _super_chat(self, obj: dict[str, Any], mono: float, wall: float) -> Event | None:
        d = obj["data"]
        sc_id = _str(d["id"])
        if self._recent.seen("sc:" + sc_id):
            return None  # the JPN variant repeats the same super chat
        ui = d.get("user_info") or {}
        medal = d.get("medal_info") or {}
        user = User(
            id=str(d["uid"]),
            name=_str(ui.get("uname")),
            level=_int(ui.get("user_level")),
            medal_name=_str(medal.get("medal_name")),
            medal_level=_int(medal.get("medal_level")),
            guard_level=_int(ui.get("guard_level")),
            face=_str(ui.get("face")),
        )
        text = d.get("message")
        if type(text) is not str:
            raise DecodeError("shape", "super chat message is not a string")
        extra = {"duration_s": _int(d.get("time")), "sc_id": sc_id}
        return Event(
            PLATFORM, self.room, EventKind.SUPER_CHAT, user, text, cny_to_milli(d["price"]), f"sc:{sc_id}", extra, mono,
            wall, Money.of("CNY", d["price"]),
        )

    def _super_chat_delete(self, obj: dict[str, Any], mono: float, wall: float) -> Event:
        ids = [str(i) for i in obj["data"]["ids"]]
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "", {"type": "sc_delete", "ids": ids},
                     mono, wall)

    def _guard_event(self, uid: str, name: str, level: int, num: int, unit_price: int, start: int, gift: str,
                     mono: float, wall: float) -> Event | None:
        key = f"guard:{uid}:{start}:{level}"
        if self._recent.seen(key):
            return None
        user = User(id=uid, name=name, guard_level=level)
        extra = {"guard_level": level, "count": num, "gift_name": gift}
        return Event(PLATFORM, self.room, EventKind.GUARD, user, "", unit_price * num, key, extra,
                     mono, wall, Money("bilibili_gold", unit_price * num))

    def _guard_buy(self, obj: dict[str, Any], mono: float, wall: float) -> Event | None:
        d = obj["data"]
        return self._guard_event(
            str(d["uid"]), _str(d.get("username")), _int(d.get("guard_level")), _int(d.get("num")) or 1,
            _int(d.get("price")), _int(d.get("start_time")), _str(d.get("gift_name")), mono, wall,
        )

    def _user_toast_v2(self, obj: dict[str, Any], mono: float, wall: float) -> Event | None:
        d = obj["data"]
        sender = d.get("sender_uinfo") or {}
        guard = d.get("guard_info") or {}
        pay = d.get("pay_info") or {}
        return self._guard_event(
            str(sender.get("uid", "")), _str((sender.get("base") or {}).get("name")), _int(guard.get("guard_level")),
            _int(pay.get("num")) or 1, _int(pay.get("price")), _int(guard.get("start_time")),
            _str((d.get("gift_info") or {}).get("gift_name")), mono, wall,
        )

    # ------------------------------------------------------------ interactions

    def _interact_event(self, uid: int, name: str, msg_type: int, face: str, medal_name: str, medal_level: int,
                        ts: int, mono: float, wall: float) -> Event:
        kind = _INTERACT.get(msg_type)
        extra: dict[str, Any] = {"msg_type": msg_type}
        if kind is None:
            kind = EventKind.SYSTEM
            extra["type"] = "share" if msg_type == 3 else "interact"
        user = User(str(uid), name, 0, medal_name, medal_level, 0, face)
        return Event(PLATFORM, self.room, kind, user, "", 0, f"iw:{uid}:{msg_type}:{ts}", extra, mono, wall)

    def _interact(self, obj: dict[str, Any], mono: float, wall: float) -> Event:
        d = obj["data"]
        medal = d.get("fans_medal") or {}
        return self._interact_event(
            _int(d["uid"]), _str(d.get("uname")), _int(d.get("msg_type")), "", _str(medal.get("medal_name")),
            _int(medal.get("medal_level")), _int(d.get("trigger_time") or d.get("timestamp")), mono, wall,
        )

    def _interact_v2(self, obj: dict[str, Any], mono: float, wall: float) -> Event:
        msg = pb.decode(_b64(obj["data"]["pb"]))
        face = ""
        if 22 in msg:
            uinfo = pb.get_msg(msg, 22)
            if 2 in uinfo:
                face = pb.get_str(pb.get_msg(uinfo, 2), 2)
        return self._interact_event(
            pb.get_int(msg, 1), pb.get_str(msg, 2), pb.get_int(msg, 5), face, "", 0, pb.get_int(msg, 7), mono, wall
        )

    def _like_click(self, obj: dict[str, Any], mono: float, wall: float) -> Event:
        d = obj["data"]
        medal = d.get("fans_medal") or {}
        user = User(id=str(d["uid"]), name=_str(d.get("uname")), medal_name=_str(medal.get("medal_name")),
                    medal_level=_int(medal.get("medal_level")))
        return Event(PLATFORM, self.room, EventKind.LIKE, user, _str(d.get("like_text")), 0, "",
                     {"count": 1}, mono, wall)

    def _like_update(self, obj: dict[str, Any], mono: float, wall: float) -> Event:
        total = _int(obj["data"]["click_count"])
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "", {"type": "likes_total", "total": total},
                     mono, wall)

    # ------------------------------------------------------------ room state

    def _watched(self, obj: dict[str, Any], mono: float, wall: float) -> Event:
        d = obj["data"]
        extra = {"type": "watched", "num": _int(d["num"]), "text": _str(d.get("text_large"))}
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "", extra, mono, wall)

    def _live_start(self, obj: dict[str, Any], mono: float, wall: float) -> Event:
        self._live(True)
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "", {"type": "live"}, mono, wall)

    def _preparing(self, obj: dict[str, Any], mono: float, wall: float) -> Event:
        self._live(False)
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "", {"type": "ended"}, mono, wall)


def _b64(s: Any) -> bytes:
    if type(s) is not str:
        raise DecodeError("shape", "pb is not a base64 string")
    try:
        return base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise DecodeError("base64", str(exc)) from exc
