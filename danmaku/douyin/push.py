"""Douyin official data push (直播小玩法 数据开放): a signed-callback endpoint plus the token/task start-stop calls.

Each push is verified (x-signature = base64(md5(sorted x-* headers + body + secret))), accepted in either body
shape (a JSON array, or a wrapper whose `payload` is that array as a string), deduplicated by msg_id (the
platform may deliver twice), and answered 200 at once: slow answers trip the platform's circuit breaker.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import logging
from collections.abc import Mapping
from typing import Any

import aiohttp
from aiohttp import web

from common.bounded import BoundedDict
from danmaku.config import DouyinPushSource
from danmaku.event import Event, EventKind, User
from danmaku.net import client_session, request_json
from danmaku.receiver import HttpReceiver
from danmaku.source import SessionError

log = logging.getLogger("danmaku.douyin")

PLATFORM = "douyin"
SIGNED_HEADERS = ("x-msg-type", "x-nonce-str", "x-roomid", "x-timestamp")


def push_signature(headers: Mapping[str, str], body: bytes, secret: str) -> str:
    """base64(md5(k1=v1&k2=v2… (x-* headers but x-signature, sorted) + raw body + secret))."""
    present = sorted(k for k in SIGNED_HEADERS if k in headers)
    raw = "&".join(f"{k}={headers[k]}" for k in present).encode() + body + secret.encode()
    return base64.b64encode(hashlib.md5(raw).digest()).decode()


def _s(x: Any) -> str:
    return "" if x is None else str(x)


def _i(x: Any) -> int:
    try:
        return int(x or 0)
    except (TypeError, ValueError, OverflowError):
        return 0


class DouyinPushReceiver(HttpReceiver):
    def __init__(self, cfg: DouyinPushSource, room_id: str):
        super().__init__(cfg, room_id)
        self.cfg: DouyinPushSource = cfg
        self._seen: BoundedDict[str, None] = BoundedDict(cfg.dedup_size)
        self.duplicates = 0
        self.douyin_room_id: str | None = cfg.room_id
        self._access_token: str | None = None
        self.tasks_started: set[str] = set()
        self._http: aiohttp.ClientSession | None = None

    def _routes(self, app: web.Application) -> None:
        app.router.add_post(self.cfg.path, self._handle)

    # ------------------------------------------------------------ pushes

    async def _handle(self, request: web.Request) -> web.Response:
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            self.errors.add("too_large", "push body")
            return web.json_response({"err_no": 413}, status=413)
        headers = {k.lower(): v for k, v in request.headers.items()}
        given = headers.get("x-signature", "")
        expected = push_signature(headers, body, self.cfg.push_secret.get_secret_value())
        if not hmac.compare_digest(given.encode(), expected.encode()):
            self.errors.add("signature", f"msg_type={headers.get('x-msg-type', '?')}")
            return web.json_response({"err_no": 403, "err_msg": "bad signature"}, status=403)
        # From here on, always 200: a well-signed push that we cannot read is our problem, not a retry.
        try:
            items, msg_type = self._items(body, headers.get("x-msg-type", ""))
        except UnicodeDecodeError:
            self.errors.add("utf8", "push body")
            return web.json_response({"err_no": 0})
        except (ValueError, RecursionError) as exc:
            self.errors.add("shape" if not isinstance(exc, json.JSONDecodeError) else "json", str(exc))
            return web.json_response({"err_no": 0})
        self._touch()
        for item in items:
            if not isinstance(item, dict):
                self.errors.add("shape", "push item is not an object")
                continue
            msg_id = _s(item.get("msg_id"))
            if msg_id and self._dup(msg_id):
                continue
            ev = self._event(msg_type, item, msg_id)
            if ev is not None:
                self._emit(ev)
        return web.json_response({"err_no": 0})

    @staticmethod
    def _items(body: bytes, msg_type: str) -> tuple[list[Any], str]:
        obj = json.loads(body.decode("utf-8"))
        if isinstance(obj, list):
            return obj, msg_type
        if isinstance(obj, dict) and "payload" in obj:
            payload = obj["payload"]
            if isinstance(payload, str):
                payload = json.loads(payload)
            if not isinstance(payload, list):
                raise ValueError("payload is not an array")
            return payload, msg_type or _s(obj.get("msg_type"))
        raise ValueError("body is neither an array nor a {payload} wrapper")

    def _dup(self, msg_id: str) -> bool:
        if self._seen.seen(msg_id):
            self.duplicates += 1
            return True
        return False

    def _event(self, msg_type: str, d: dict[str, Any], msg_id: str) -> Event | None:
        user = User(id=_s(d.get("sec_openid")), name=_s(d.get("nickname")), face=_s(d.get("avatar_url")))
        mid = f"dyp:{msg_id}" if msg_id else ""
        if msg_type == "live_comment":
            return Event(PLATFORM, self.room, EventKind.COMMENT, user, _s(d.get("content")), msg_id=mid)
        if msg_type == "live_gift":
            test = bool(d.get("test"))
            value = _i(d.get("gift_value")) * 10  # reported in fen (0.01 CNY) = 10 milli-yuan
            if test and not self.cfg.accept_test_gifts:
                value = 0
            extra: dict[str, Any] = {"gift_id": _s(d.get("sec_gift_id")), "count": _i(d.get("gift_num"))}
            if test:
                extra["test"] = True
            return Event(PLATFORM, self.room, EventKind.GIFT, user, "", value, mid, extra)
        if msg_type == "live_like":
            return Event(PLATFORM, self.room, EventKind.LIKE, user, "", 0, mid, {"count": _i(d.get("like_num"))})
        if msg_type == "live_fansclub":
            reason, level = _i(d.get("fansclub_reason_type")), _i(d.get("fansclub_level"))
            user = User(id=user.id, name=user.name, face=user.face, medal_level=level)
            if reason == 2:
                return Event(PLATFORM, self.room, EventKind.FOLLOW, user, "", 0, mid,
                             {"fansclub": "join", "level": level})
            return Event(PLATFORM, self.room, EventKind.SYSTEM, user, "", 0, mid,
                         {"type": "fansclub_upgrade", "level": level})
        self._unknown(msg_type or "?")
        return None

    # ------------------------------------------------------------ tasks

    def _client(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = client_session(self.cfg.http_timeout_s)
        return self._http

    async def _post(self, url: str, payload: dict[str, Any], what: str, headers: dict[str, str] | None = None) -> Any:
        data, _ = await request_json(self._client(), "POST", url, ssl_arg=True, what=what, json=payload,
                                     headers=headers)
        if not isinstance(data, dict):
            raise SessionError(f"{what}: unexpected response shape")
        return data

    async def _token(self) -> str:
        assert self.cfg.app_secret is not None
        data = await self._post(self.cfg.token_url, {"appid": self.cfg.app_id,
                                                     "secret": self.cfg.app_secret.get_secret_value(),
                                                     "grant_type": "client_credential"}, "access token")
        token = (data.get("data") or {}).get("access_token")
        if data.get("err_no", 0) != 0 or not token:
            raise SessionError(f"access token: err_no {data.get('err_no')}: {data.get('err_tips') or data.get('err_msg')}")
        return str(token)

    async def _resolve_room(self, token: str) -> str:
        assert self.cfg.launch_token is not None
        data = await self._post(f"{self.cfg.webcast_base}/api/webcastmate/info",
                                {"token": self.cfg.launch_token.get_secret_value()}, "room info", {"X-Token": token})
        room = ((data.get("data") or {}).get("info") or {}).get("room_id")
        if not room:
            raise SessionError(f"room info: err_no {data.get('err_no')}: no room_id")
        return str(room)

    async def _task(self, action: str, msg_type: str) -> None:
        assert self._access_token is not None and self.douyin_room_id is not None
        data = await self._post(f"{self.cfg.webcast_base}/api/live_data/task/{action}",
                                {"roomid": self.douyin_room_id, "appid": self.cfg.app_id, "msg_type": msg_type},
                                f"task {action} {msg_type}", {"access-token": self._access_token})
        if data.get("err_no", 0) != 0:
            raise SessionError(f"task {action} {msg_type}: err_no {data.get('err_no')}: {data.get('err_msg')}")

    async def _serving(self) -> None:
        if not self.cfg.start_tasks:
            await asyncio.Event().wait()
        delay = 1.0
        while True:
            try:
                self._access_token = await self._token()
                if self.douyin_room_id is None:
                    self.douyin_room_id = await self._resolve_room(self._access_token)
                for mt in self.cfg.msg_types:
                    if mt not in self.tasks_started:
                        await self._task("start", mt)
                        self.tasks_started.add(mt)
                break
            except SessionError as exc:
                # The game may not be mounted yet: keep the endpoint up and retry the calls.
                self._warn(f"{exc}; retrying in {delay:.0f} s")
                await asyncio.sleep(delay)
                delay = min(delay * 2, 60.0)
        await asyncio.Event().wait()

    def _silence_cause(self) -> str:
        return "push tasks stopped (stream ended or the game was unmounted) or the callback URL is wrong"

    async def _on_stop(self) -> None:
        try:
            if self._access_token and self.douyin_room_id:
                for mt in sorted(self.tasks_started):
                    with contextlib.suppress(SessionError):
                        await self._task("stop", mt)
                self.tasks_started.clear()
        finally:
            if self._http is not None:
                await self._http.close()
                self._http = None
