"""Twitch IRC lines (IRCv3 tags) and the PRIVMSG/USERNOTICE/CLEARMSG/CLEARCHAT → Event mapping.

A WebSocket text frame carries one or more CRLF-terminated lines: `@tags :prefix COMMAND params :trailing`.
Tag values are escaped (`\\s` space, `\\:` semicolon, `\\\\` backslash, `\\r`, `\\n`). Money: a cheer is a
SUPER_CHAT with Money("twitch_bit", bits); a sub, resub or gift sub is a GUARD with Money("twitch_sub_<tier>",
months); a mystery gift of N subs is one GUARD of N, and the N `subgift` notices that follow it (same
community-gift/origin id) are recipients (SYSTEM, no money), so nothing is counted twice.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from common.bounded import BoundedDict
from danmaku.event import Event, EventKind, Money, User
from danmaku.source import DecodeError

PLATFORM = "twitch"
MAX_LINE = 16 * 1024  # Twitch's own lines stay far below this (tags ≤ 8 KiB, text ≤ 500 characters)

_UNESCAPE = {":": ";", "s": " ", "\\": "\\", "r": "\r", "n": "\n"}
SUB_UNITS = {"Prime": "twitch_sub_prime", "1000": "twitch_sub_tier1", "2000": "twitch_sub_tier2",
             "3000": "twitch_sub_tier3"}
# Commands that carry no chat: session bookkeeping the client handles or ignores.
QUIET = frozenset({"001", "002", "003", "004", "353", "366", "372", "375", "376", "CAP", "JOIN", "PART",
                   "USERSTATE", "GLOBALUSERSTATE", "HOSTTARGET", "WHISPER", "PONG", "PING", "RECONNECT",
                   "NOTICE", "ROOMSTATE", "421"})
_CHEER = re.compile(r"(?<!\S)([A-Za-z]+)(\d+)(?!\S)")


@dataclass(frozen=True, slots=True)
class IrcMessage:
    tags: dict[str, str]
    prefix: str
    command: str
    params: list[str]

    @property
    def nick(self) -> str:
        return self.prefix.split("!", 1)[0]

    @property
    def trailing(self) -> str:
        return self.params[-1] if self.params else ""


def unescape(value: str) -> str:
    if "\\" not in value:
        return value
    out: list[str] = []
    i, n = 0, len(value)
    while i < n:
        c = value[i]
        if c == "\\":
            if i + 1 < n:
                nxt = value[i + 1]
                out.append(_UNESCAPE.get(nxt, nxt))
            i += 2  # a lone trailing backslash is dropped (IRCv3)
            continue
        out.append(c)
        i += 1
    return "".join(out)


def parse_line(line: str) -> IrcMessage:
    """One IRC line (without CRLF) → IrcMessage; DecodeError("irc") when it has no command."""
    if len(line) > MAX_LINE:
        raise DecodeError("too_long", f"{len(line)} characters")
    tags: dict[str, str] = {}
    rest = line
    if rest.startswith("@"):
        raw, _, rest = rest[1:].partition(" ")
        for item in raw.split(";"):
            key, _, val = item.partition("=")
            if key:
                tags[key] = unescape(val)
    rest = rest.lstrip(" ")
    prefix = ""
    if rest.startswith(":"):
        prefix, _, rest = rest[1:].partition(" ")
        rest = rest.lstrip(" ")
    head, sep, trailing = rest.partition(" :")
    parts = head.split()
    if not parts:
        raise DecodeError("irc", f"no command in {line[:80]!r}")
    command = parts[0].upper()
    if not command.isalnum():
        raise DecodeError("irc", f"bad command {command[:40]!r}")
    params = parts[1:]
    if sep:
        params.append(trailing)
    return IrcMessage(tags, prefix, command, params)


def split_frame(data: str) -> list[str]:
    """A text frame's lines (CRLF, or a bare LF from a sloppy relay); never splits on Unicode line separators."""
    return [ln.rstrip("\r") for ln in data.split("\n") if ln.strip("\r")]


def _int(tags: dict[str, str], key: str, default: int = 0) -> int:
    raw = tags.get(key)
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit()):  # counts and ids: never signed, never other scripts' digits
        raise DecodeError("shape", f"tag {key}={raw[:20]!r} is not an unsigned integer")
    return int(raw)


def strip_cheermotes(text: str, bits: int) -> str:
    """The words of a cheer without its cheermotes (Cheer100, Kappa50 …): tokens of letters + a count that add up
    to the bits. When they do not add up (a word like "top10"), only the `cheer…` tokens go."""
    found = list(_CHEER.finditer(text))
    if not found:
        return text
    if sum(int(m.group(2)) for m in found) != bits:
        found = [m for m in found if "cheer" in m.group(1).lower()]
    for m in reversed(found):
        text = text[: m.start()] + text[m.end():]
    return " ".join(text.split())


class TwitchNormalizer:
    """IrcMessages of one channel → Events (see the module doc)."""

    def __init__(self, room: str, error: Callable[[str, str], None], unknown: Callable[[str], None]):
        self.room = room
        self._error, self._unknown = error, unknown
        self._mystery: BoundedDict[str, None] = BoundedDict(1024)  # community-gift/origin ids of mystery gifts
        self._cheers: BoundedDict[str, None] = BoundedDict(4096)  # ids of cheers handed on (to withdraw)
        self._handlers: dict[str, Callable[[IrcMessage, float, float], Event | None]] = {
            "PRIVMSG": self._privmsg,
            "USERNOTICE": self._usernotice,
            "CLEARMSG": self._clearmsg,
            "CLEARCHAT": self._clearchat,
        }

    def handle(self, msg: IrcMessage, out: list[Event], mono: float | None = None, wall: float | None = None) -> bool:
        """Appends the message's Event, if any; False when it is no chat message at all (session bookkeeping)."""
        handler = self._handlers.get(msg.command)
        if handler is None:
            if msg.command not in QUIET:
                self._unknown(msg.command)
            return False
        try:
            ev = handler(msg, time.monotonic() if mono is None else mono, time.time() if wall is None else wall)
        except DecodeError as exc:
            self._error(exc.kind, f"{msg.command}: {exc.detail}")
            return True
        if ev is not None:
            out.append(ev)
        return True

    @staticmethod
    def _user(tags: dict[str, str], login: str) -> User:
        months = 0
        info = tags.get("badge-info", "")
        if info.startswith("subscriber/") or ",subscriber/" in info:
            part = info[info.index("subscriber/") + 11:].split(",", 1)[0]
            months = int(part) if part.isascii() and part.isdigit() else 0
        subscribed = "subscriber/" in tags.get("badges", "") or tags.get("subscriber") == "1"
        return User(id=tags.get("user-id", ""), name=(tags.get("display-name") or login).strip() or login,
                    medal_name="subscriber" if subscribed else "", medal_level=months)

    @staticmethod
    def _extra(tags: dict[str, str], login: str) -> dict[str, Any]:
        extra: dict[str, Any] = {"login": login}
        if tags.get("badges"):
            extra["badges"] = tags["badges"]
        if tags.get("mod") == "1":
            extra["mod"] = True
        if tags.get("emotes"):
            extra["emotes"] = tags["emotes"]  # "id:start-end,…/…": where the emotes are, for an English room's triage
        return extra

    def _privmsg(self, msg: IrcMessage, mono: float, wall: float) -> Event | None:
        if len(msg.params) < 2:
            raise DecodeError("shape", "PRIVMSG without text")
        tags, login = msg.tags, msg.tags.get("login") or msg.nick
        text = msg.params[-1]
        extra = self._extra(tags, login)
        if text.startswith("\x01ACTION ") and text.endswith("\x01"):
            text, extra["action"] = text[8:-1], True
        bits = _int(tags, "bits")
        mid = tags.get("id", "")
        user = self._user(tags, login)
        if bits > 0:
            extra.update(bits=bits, sc_id=mid)
            shown = strip_cheermotes(text, bits)
            if shown != text:
                extra["raw_text"] = text
            if mid:
                self._cheers[mid] = None
            return Event(PLATFORM, self.room, EventKind.SUPER_CHAT, user, shown, 0, f"tw:{mid}", extra, mono, wall,
                         Money("twitch_bit", bits))
        return Event(PLATFORM, self.room, EventKind.COMMENT, user, text, 0, f"tw:{mid}" if mid else "", extra,
                     mono, wall)

    def _usernotice(self, msg: IrcMessage, mono: float, wall: float) -> Event | None:
        tags = msg.tags
        kind_id = tags.get("msg-id", "")
        login = tags.get("login") or msg.nick
        user = self._user(tags, login)
        text = msg.params[1] if len(msg.params) > 1 else ""
        mid = f"tw:{tags['id']}" if tags.get("id") else ""
        extra = self._extra(tags, login)
        extra.update(type=kind_id, system_msg=tags.get("system-msg", ""))
        plan = tags.get("msg-param-sub-plan", "")
        unit = SUB_UNITS.get(plan, f"twitch_sub:{plan.lower() or 'unknown'}")
        if kind_id in ("sub", "resub"):
            extra.update(plan=plan, plan_name=tags.get("msg-param-sub-plan-name", ""),
                         months=_int(tags, "msg-param-cumulative-months", _int(tags, "msg-param-months", 1)),
                         streak=_int(tags, "msg-param-streak-months"), count=1)
            return Event(PLATFORM, self.room, EventKind.GUARD, user, text, 0, mid, extra, mono, wall, Money(unit, 1))
        if kind_id in ("subgift", "anonsubgift"):
            gift_ids = {tags.get("msg-param-community-gift-id"), tags.get("msg-param-origin-id")} - {None, ""}
            extra.update(plan=plan, recipient=tags.get("msg-param-recipient-display-name", ""),
                         recipient_id=tags.get("msg-param-recipient-id", ""),
                         gift_months=_int(tags, "msg-param-gift-months", 1))
            if any(g in self._mystery for g in gift_ids):
                extra["type"] = "subgift_recipient"  # counted in its mystery gift
                return Event(PLATFORM, self.room, EventKind.SYSTEM, user, "", 0, mid, extra, mono, wall)
            extra["count"] = 1
            return Event(PLATFORM, self.room, EventKind.GUARD, user, text, 0, mid, extra, mono, wall,
                         Money(unit, extra["gift_months"]))
        if kind_id in ("submysterygift", "anonsubmysterygift"):
            count = _int(tags, "msg-param-mass-gift-count", 1)
            for key in ("msg-param-community-gift-id", "msg-param-origin-id"):
                if tags.get(key):
                    self._mystery[tags[key]] = None
            extra.update(plan=plan, count=count, sender_total=_int(tags, "msg-param-sender-count"))
            return Event(PLATFORM, self.room, EventKind.GUARD, user, text, 0, mid, extra, mono, wall,
                         Money(unit, count))
        if kind_id == "raid":
            extra.update(viewers=_int(tags, "msg-param-viewerCount"),
                         from_channel=tags.get("msg-param-displayName") or tags.get("msg-param-login", ""))
        return Event(PLATFORM, self.room, EventKind.SYSTEM, user, text, 0, mid, extra, mono, wall)

    def _clearmsg(self, msg: IrcMessage, mono: float, wall: float) -> Event:
        target = msg.tags.get("target-msg-id", "")
        if not target:
            raise DecodeError("shape", "CLEARMSG without target-msg-id")
        # A deleted cheer must not be read out: it withdraws like a deleted super chat.
        kind = "sc_delete" if target in self._cheers else "msg_delete"
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "",
                     {"type": kind, "ids": [target], "login": msg.tags.get("login", "")}, mono, wall)

    def _clearchat(self, msg: IrcMessage, mono: float, wall: float) -> Event:
        tags = msg.tags
        if len(msg.params) > 1:
            extra: dict[str, Any] = {"type": "user_ban", "login": msg.params[1],
                                     "user_id": tags.get("target-user-id", ""),
                                     "duration_s": _int(tags, "ban-duration")}
        else:
            extra = {"type": "chat_clear"}
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "", extra, mono, wall)
