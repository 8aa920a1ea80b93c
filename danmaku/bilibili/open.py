"""Bilibili open platform (开放平台) connector: HMAC-signed start/heartbeat/end and the LIVE_OPEN_PLATFORM_* feed."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from common.bounded import BoundedDict
from danmaku.bilibili.commands import _int, _str, loads
from danmaku.bilibili.ws import BiliWsSource
from danmaku.config import BilibiliOpenSource
from danmaku.event import Event, EventKind, Money, User, cny_to_milli
from danmaku.net import client_session, request_json
from danmaku.source import DecodeError, SessionError

log = logging.getLogger("danmaku.bilibili")

PLATFORM = "bilibili"
_CLOSED_CODES = (7000, 7003)  # "game already closed": success for end, restart for heartbeat


def sign_headers(body: bytes, key_id: str, key_secret: str, *, nonce: str | None = None,
                 timestamp: int | None = None) -> dict[str, str]:
    """The open platform's request signature: HMAC-SHA256 over the six x-bili-* headers sorted by key."""
    h = {
        "x-bili-accesskeyid": key_id,
        "x-bili-content-md5": hashlib.md5(body).hexdigest(),
        "x-bili-signature-method": "HMAC-SHA256",
        "x-bili-signature-nonce": nonce if nonce is not None else secrets.token_hex(16),
        "x-bili-signature-version": "1.0",
        "x-bili-timestamp": str(int(time.time()) if timestamp is None else timestamp),
    }
    to_sign = "\n".join(f"{k}:{h[k]}" for k in sorted(h))
    h["Authorization"] = hmac.new(key_secret.encode(), to_sign.encode(), hashlib.sha256).hexdigest()
    h["Content-Type"] = "application/json"
    h["Accept"] = "application/json"
    return h


class OpenApiError(SessionError):
    def __init__(self, what: str, code: Any, message: str):
        super().__init__(f"{what}: code {code}: {message}")
        self.code = code


@dataclass
class Game:
    game_id: str
    wss_links: list[str]
    auth_body: str
    anchor_room_id: int


class OpenNormalizer:
    """LIVE_OPEN_PLATFORM_* command bodies → Events."""

    def __init__(self, room: str, error: Callable[[str, str], None], unknown: Callable[[str], None],
                 live: Callable[[bool], None], interaction_end: Callable[[], None]):
        self.room = room
        self._error, self._unknown, self._live, self._end = error, unknown, live, interaction_end
        # msg_ids already handed on: a message the platform sends again (after a reconnect) counts once.
        self._seen: BoundedDict[str, None] = BoundedDict(8192)
        p = "LIVE_OPEN_PLATFORM_"
        self._handlers: dict[str, Callable[[dict[str, Any], float, float], Event | None]] = {
            p + "DM": self._dm,
            p + "DM_MIRROR": self._dm,
            p + "SEND_GIFT": self._gift,
            p + "GUARD": self._guard,
            p + "SUPER_CHAT": self._sc,
            p + "SUPER_CHAT_DEL": self._sc_del,
            p + "LIKE": self._like,
            p + "LIVE_ROOM_ENTER": self._enter,
            p + "LIVE_START": self._start,
            p + "LIVE_END": self._stop,
            p + "INTERACTION_END": self._interaction_end,
        }

    def feed(self, bodies: list[bytes], out: list[Event]) -> int:
        mono, wall = time.monotonic(), time.time()
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
            if type(obj) is not dict or type(obj.get("cmd")) is not str:
                self._error("shape", "command is not an object with 'cmd'")
                continue
            good += 1
            cmd = obj["cmd"]
            handler = self._handlers.get(cmd)
            if handler is None:
                self._unknown(cmd)
                continue
            data = obj.get("data")
            if type(data) is not dict:
                self._error("shape", f"{cmd}: data is not an object")
                continue
            try:
                ev = handler(data, mono, wall)
            except DecodeError as exc:
                self._error(exc.kind, f"{cmd}: {exc.detail}")
                continue
            except (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError) as exc:
                self._error("shape", f"{cmd}: {type(exc).__name__}: {exc}")
                continue
            if ev is not None:
                if ev.msg_id and self._seen.seen(ev.msg_id):
                    continue
                out.append(ev)
        return good

    @staticmethod
    def _user(d: dict[str, Any]) -> User:
        wearing = d.get("fans_medal_wearing_status", True)
        return User(
            id=_str(d.get("open_id")),
            name=_str(d.get("uname")),
            medal_name=_str(d.get("fans_medal_name")) if wearing else "",
            medal_level=_int(d.get("fans_medal_level")) if wearing else 0,
            guard_level=_int(d.get("guard_level")),
            face=_str(d.get("uface")),
        )

    def _dm(self, d: dict[str, Any], mono: float, wall: float) -> Event:
        text = d["msg"]
        if type(text) is not str:
            raise DecodeError("shape", "msg is not a string")
        extra: dict[str, Any] = {"dm_type": _int(d.get("dm_type"))}
        if d.get("emoji_img_url"):
            extra["emoji_url"] = _str(d["emoji_img_url"])
        return Event(PLATFORM, self.room, EventKind.COMMENT, self._user(d), text, 0, _str(d.get("msg_id")),
                     extra, mono, wall)

    def _gift(self, d: dict[str, Any], mono: float, wall: float) -> Event:
        num = _int(d.get("gift_num"))
        paid = bool(d.get("paid"))
        value = _int(d.get("price")) * num if paid else 0  # price in gold coins = milli-yuan
        extra: dict[str, Any] = {"gift_name": _str(d.get("gift_name")), "gift_id": _int(d.get("gift_id")),
                                 "count": num, "paid": paid}
        combo = d.get("combo_info")
        if isinstance(combo, dict) and d.get("combo_gift"):
            extra["combo_id"] = _str(combo.get("combo_id"))
            extra["combo_count"] = _int(combo.get("combo_count"))
        return Event(PLATFORM, self.room, EventKind.GIFT, self._user(d), "", value, _str(d.get("msg_id")),
                     extra, mono, wall, Money("bilibili_gold" if paid else "bilibili_silver", _int(d.get("price")) * num))

    def _guard(self, d: dict[str, Any], mono: float, wall: float) -> Event:
        ui = d.get("user_info") or {}
        level = _int(d.get("guard_level"))
        num = _int(d.get("guard_num")) or 1
        user = User(id=_str(ui.get("open_id")), name=_str(ui.get("uname")), face=_str(ui.get("uface")),
                    guard_level=level, medal_name=_str(d.get("fans_medal_name")),
                    medal_level=_int(d.get("fans_medal_level")))
        extra = {"guard_level": level, "count": num, "unit": _str(d.get("guard_unit"))}
        return Event(PLATFORM, self.room, EventKind.GUARD, user, "", _int(d.get("price")) * num,
                     _str(d.get("msg_id")), extra, mono, wall, Money("bilibili_gold", _int(d.get("price")) * num))

    def _sc(self, d: dict[str, Any], mono: float, wall: float) -> Event:
        text = d["message"]
        if type(text) is not str:
            raise DecodeError("shape", "message is not a string")
        extra = {"sc_id": _str(d.get("message_id")),
                 "duration_s": max(0, _int(d.get("end_time")) - _int(d.get("start_time")))}
        return Event(PLATFORM, self.room, EventKind.SUPER_CHAT, self._user(d), text, cny_to_milli(d["rmb"]),
                     f"sc:{_str(d.get('message_id'))}", extra, mono, wall, Money.of("CNY", d["rmb"]))

    def _sc_del(self, d: dict[str, Any], mono: float, wall: float) -> Event:
        ids = [str(i) for i in d["message_ids"]]
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, _str(d.get("msg_id")),
                     {"type": "sc_delete", "ids": ids}, mono, wall)

    def _like(self, d: dict[str, Any], mono: float, wall: float) -> Event:
        return Event(PLATFORM, self.room, EventKind.LIKE, self._user(d), _str(d.get("like_text")), 0,
                     _str(d.get("msg_id")), {"count": _int(d.get("like_count")) or 1}, mono, wall)

    def _enter(self, d: dict[str, Any], mono: float, wall: float) -> Event:
        return Event(PLATFORM, self.room, EventKind.ENTER, self._user(d), "", 0, _str(d.get("msg_id")), {},
                     mono, wall)

    def _start(self, d: dict[str, Any], mono: float, wall: float) -> Event:
        self._live(True)
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, _str(d.get("title")), 0, _str(d.get("msg_id")),
                     {"type": "live", "area": _str(d.get("area_name"))}, mono, wall)

    def _stop(self, d: dict[str, Any], mono: float, wall: float) -> Event:
        self._live(False)
        return Event(PLATFORM, self.room, EventKind.SYSTEM, None, _str(d.get("title")), 0, _str(d.get("msg_id")),
                     {"type": "ended"}, mono, wall)

    def _interaction_end(self, d: dict[str, Any], mono: float, wall: float) -> None:
        self._end()
        return None


class BilibiliOpenClient(BiliWsSource):
    platform = "bilibili"
    watches_live_room = True

    def __init__(self, cfg: BilibiliOpenSource, room_id: str):
        super().__init__(cfg, room_id)
        self.cfg: BilibiliOpenSource = cfg
        self.game: Game | None = None
        self._link_index = 0
        self._project_hb: asyncio.Task[None] | None = None
        self._current_ws_close: asyncio.Event = asyncio.Event()
        self.starts = 0
        self.project_heartbeats = 0
        self._normalizer = OpenNormalizer(room_id, self.errors.add, self._unknown, self._set_live, self._restart)
        self._normalize = self._normalizer.feed

    def _http_client(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = client_session(self.cfg.http_timeout_s)
        return self._http

    async def _call(self, path: str, payload: dict[str, Any], what: str) -> dict[str, Any]:
        body = json.dumps(payload, separators=(",", ":")).encode()
        headers = sign_headers(body, self.cfg.access_key_id.get_secret_value(),
                               self.cfg.access_key_secret.get_secret_value())
        data, _ = await request_json(self._http_client(), "POST", f"{self.cfg.api_base}{path}", ssl_arg=self._ssl,
                                     what=what, data=body, headers=headers)
        if not isinstance(data, dict):
            raise SessionError(f"{what}: unexpected response shape")
        return data

    async def _start(self) -> Game:
        self.starts += 1
        data = await self._call("/v2/app/start", {"code": self.cfg.code.get_secret_value(), "app_id": self.cfg.app_id},
                                "start")
        if data.get("code") != 0:
            raise OpenApiError("start", data.get("code"), _str(data.get("message")))
        d = data.get("data") or {}
        try:
            game_id = str(d["game_info"]["game_id"])
            ws = d["websocket_info"]
            links = [str(x) for x in ws["wss_link"]]
            auth_body = ws["auth_body"]
            if not links or not isinstance(auth_body, str):
                raise ValueError("empty wss_link or auth_body")
        except (KeyError, TypeError, ValueError) as exc:
            raise SessionError(f"start: unexpected response: {exc}") from exc
        room = _int((d.get("anchor_info") or {}).get("room_id"))
        return Game(game_id, links, auth_body, room)

    async def _prepare(self) -> tuple[str, bytes, dict[str, str]]:
        if self.game is None:
            self.game = await self._start()
            self._link_index = 0
            if self._project_hb is not None:
                self._project_hb.cancel()
            self._project_hb = asyncio.create_task(self._project_heartbeats(self.game))
        game = self.game
        url = game.wss_links[self._link_index % len(game.wss_links)]
        self._link_index += 1
        # The auth body goes out exactly as the server gave it.
        return url, game.auth_body.encode(), {}

    async def _session(self) -> None:
        self._current_ws_close = close = asyncio.Event()
        inner = asyncio.create_task(super()._session())
        waiter = asyncio.create_task(close.wait())
        try:
            done, _ = await asyncio.wait({inner, waiter}, return_when=asyncio.FIRST_COMPLETED)
            if inner in done:
                inner.result()
                return
            raise SessionError("the open platform closed the game; starting it again")
        finally:
            for t in (inner, waiter):
                t.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t

    def _restart(self) -> None:
        """The game is gone (INTERACTION_END or heartbeat 7003): end this session and call start again."""
        self.game = None
        self._current_ws_close.set()

    async def _project_heartbeats(self, game: Game) -> None:
        while True:
            await asyncio.sleep(self.cfg.project_heartbeat_s)
            if self.game is not game:
                return
            try:
                data = await self._call("/v2/app/heartbeat", {"game_id": game.game_id}, "heartbeat")
            except SessionError as exc:
                log.info("%s/%s: project heartbeat failed: %s", self.room, self.name, exc)
                continue
            self.project_heartbeats += 1
            code = data.get("code")
            if code in _CLOSED_CODES:
                self._warn(f"project heartbeat: code {code} (game closed); starting again")
                self._restart()
                return
            if code != 0:
                log.info("%s/%s: project heartbeat: code %s: %s", self.room, self.name, code, data.get("message"))

    def _on_auth_rejected(self, code: Any) -> None:
        self.game = None  # a fresh start gives a fresh auth body

    def _silence_cause(self) -> str:
        return "the open-platform game may have been closed (missed project heartbeats) or the app lost access"

    async def _on_stop(self) -> None:
        if self._project_hb is not None:
            self._project_hb.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._project_hb
        game, self.game = self.game, None
        try:
            if game is not None:
                # Without `end` the room may not be reopened for a while.
                data = await self._call("/v2/app/end", {"app_id": self.cfg.app_id, "game_id": game.game_id}, "end")
                code = data.get("code")
                if code not in (0, *_CLOSED_CODES):
                    self._warn(f"end: code {code}: {data.get('message')}")
        finally:
            await self._close_http()
