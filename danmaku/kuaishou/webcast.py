"""Kuaishou web live connector: cookies + live stream id + websocketinfo bootstrap, enter room, heartbeats, feed.

Bootstrap, as the public web client does it: (1) cookies: the operator's logged-in `cookie`, else what the live
home page sets (did …), kept in a jar sent only to the hosts that set them; (2) the room page
/u/<principal_id> names the live stream id (in window.__INITIAL_STATE__); (3)
/live_api/liveroom/websocketinfo?liveStreamId=… answers the feed token and WebSocket URLs (signed by the
operator's signer when configured). Then CS_ENTER_ROOM, wait for its ack, heartbeat at the interval it names.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import re
import string
import time
import urllib.parse
from http.cookies import CookieError, SimpleCookie

import aiohttp
from yarl import URL

from danmaku.config import KuaishouWebSource
from danmaku.event import Event, EventKind
from danmaku.kuaishou.gifts import GiftCatalogue
from danmaku.kuaishou.messages import (
    IGNORED,
    PLATFORM,
    SC_AUTHOR_PAUSE,
    SC_AUTHOR_RESUME,
    SC_ENTER_ROOM_ACK,
    SC_ERROR,
    SC_FEED_PUSH,
    SC_HEARTBEAT_ACK,
    SC_LIVE_WATCHING_LIST,
    KuaishouNormalizer,
    SocketMessage,
    enter_ack_heartbeat_ms,
    enter_room,
    heartbeat,
    parse_socket_message,
    payload_bytes,
    sc_error,
)
from danmaku.net import client_session, describe_error, fetch, ssl_setting
from danmaku.source import INLINE_INFLATE_BYTES, DecodeError, NeedsThread, SessionError, Source

log = logging.getLogger("danmaku.kuaishou")

_STREAM_ID = re.compile(rb'"liveStream"\s*:\s*\{\s*"id"\s*:\s*"([A-Za-z0-9_-]{4,64})"'
                        rb'|"liveStreamId"\s*:\s*"([A-Za-z0-9_-]{4,64})"')
_PAGE_ID_CHARS = string.ascii_letters + string.digits + "-_"


class KuaishouWebClient(Source):
    platform = PLATFORM
    watches_live_room = True

    def __init__(self, cfg: KuaishouWebSource, room_id: str):
        super().__init__(cfg, room_id)
        self.cfg: KuaishouWebSource = cfg
        self._ssl = ssl_setting(cfg)
        self._http: aiohttp.ClientSession | None = None
        self._jar = aiohttp.CookieJar(unsafe=True, quote_cookie=False)  # unsafe: also IP hosts (tests, proxies)
        from danmaku.douyin.signer import make_signer

        self._signer = make_signer(cfg.signer, self._ssl)
        self.gifts = GiftCatalogue(cfg.gifts, cfg.gifts_file, cfg.gifts_check_s)
        self._normalizer = KuaishouNormalizer(room_id, self.errors.add, self.gifts)
        self.live_stream_id: str | None = None
        self._token = ""
        self._ws_urls: list[str] = []
        self._url_index = 0
        self._failures = 0
        self._sessions = 0
        self.heartbeats_sent = self.enter_acks = 0
        self.heartbeat_ms: int | None = None
        self.last_signature = ""

    def _client(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = client_session(self.cfg.http_timeout_s, self.cfg.user_agent, cookie_jar=self._jar)
        return self._http

    async def _get(self, url: str, what: str, headers: dict[str, str] | None = None) -> bytes:
        status, body = await fetch(self._client(), "GET", url, ssl_arg=self._ssl, what=what, headers=headers or {})
        if status >= 400:
            raise SessionError(f"{what}: HTTP {status}")
        return body

    def _use_cookie(self, live: URL) -> bool:
        if self.cfg.cookie is None:
            return False
        jar = SimpleCookie()
        try:
            jar.load(self.cfg.cookie.get_secret_value())
        except CookieError as exc:
            raise SessionError(f"the cookie is not a Cookie header (name=value; …): {exc}") from exc
        self._jar.update_cookies({k: m.value for k, m in jar.items()}, live)
        return True

    async def _bootstrap(self) -> None:
        live = URL(self.cfg.live_base + "/")
        referer = {"Referer": f"{self.cfg.live_base}/u/{self.cfg.principal_id}"}
        if not self._use_cookie(live) and not self._jar.filter_cookies(live):
            await self._get(str(live), "bootstrap step 1 (live home page)")
        body = await self._get(f"{self.cfg.live_base}/u/{self.cfg.principal_id}", "bootstrap step 2 (room page)")
        m = _STREAM_ID.search(body)
        if m is None:
            hint = " (a captcha page: set `cookie` from a logged-in browser)" if b"captcha" in body.lower() else ""
            raise SessionError(f"bootstrap step 2 (room page): no live stream id: the room is offline, or the page "
                               f"changed shape{hint} ({len(body)} bytes)")
        self.live_stream_id = (m.group(1) or m.group(2)).decode()
        url = (f"{self.cfg.live_base}/live_api/liveroom/websocketinfo?"
               + urllib.parse.urlencode({"liveStreamId": self.live_stream_id}))
        if self.cfg.signer.type != "none":
            self.last_signature = await self._signer.sign(hashlib.md5(url.encode()).hexdigest(), url)
            url += "&" + urllib.parse.urlencode({self.cfg.sign_param: self.last_signature})
        what = "bootstrap step 3 (websocketinfo)"
        raw = await self._get(url, what, {**referer, "Accept": "application/json"})
        try:
            data = json.loads(raw).get("data")
        except (ValueError, AttributeError) as exc:
            raise SessionError(f"{what}: the answer is not a JSON object") from exc
        if not isinstance(data, dict) or data.get("result") != 1:
            result = data.get("result") if isinstance(data, dict) else None
            raise SessionError(f"{what}: refused (result {result!r}): log in (cookie), sign the request (signer), "
                               "or the room is not live")
        urls = data.get("websocketUrls")
        token = data.get("token")
        if not isinstance(token, str) or not isinstance(urls, list) or not all(isinstance(u, str) for u in urls) \
                or not urls:
            raise SessionError(f"{what}: no token or websocketUrls in the answer")
        self._token, self._ws_urls = token, urls

    @staticmethod
    def _page_id() -> str:
        return "".join(random.choice(_PAGE_ID_CHARS) for _ in range(16)) + f"_{int(time.time() * 1000)}"

    async def _session(self) -> None:
        if self.live_stream_id is None or self._failures >= max(3, len(self._ws_urls)):
            await self._bootstrap()
            self._failures = 0
        url = self._ws_urls[self._url_index % len(self._ws_urls)]
        self._url_index += 1
        try:
            ws = await self._client().ws_connect(
                url, ssl=self._ssl, autoping=True, max_msg_size=self.cfg.max_inflated_bytes,
                headers={"Origin": self.cfg.live_base, "User-Agent": self.cfg.user_agent},
                timeout=aiohttp.ClientWSTimeout(ws_receive=None, ws_close=2.0))
        except aiohttp.WSServerHandshakeError as exc:
            self.live_stream_id = None  # the token may be stale: bootstrap again
            raise SessionError(f"websocket upgrade refused: HTTP {exc.status}") from exc
        except aiohttp.ClientError as exc:
            raise SessionError(f"connect: {describe_error(exc)}") from exc
        self.heartbeat_ms = None
        hb: asyncio.Task[None] | None = None
        try:
            assert self.live_stream_id is not None
            await ws.send_bytes(enter_room(self._token, self.live_stream_id, self._page_id(), self._sessions))
            self._sessions += 1
            entered = False
            deadline = time.monotonic() + self.cfg.enter_timeout_s
            while True:
                wait = deadline - time.monotonic() if not entered else self.cfg.read_timeout_s
                try:
                    msg = await ws.receive(timeout=max(0.01, wait))
                except TimeoutError as exc:
                    if not entered:
                        self.live_stream_id = None
                        raise SessionError(f"no enter-room ack within {self.cfg.enter_timeout_s:g} s (token "
                                           "refused?)") from exc
                    raise SessionError(f"no data for {self.cfg.read_timeout_s:g} s") from exc
                if msg.type == aiohttp.WSMsgType.BINARY:
                    if await self._handle_frame(msg.data) and not entered:
                        entered = True
                        self._set_connected(True)
                        self._failures = 0
                        hb = asyncio.create_task(self._heartbeats(ws))
                elif msg.type == aiohttp.WSMsgType.TEXT:
                    self.errors.add("text_frame", msg.data[:80])
                elif msg.type == aiohttp.WSMsgType.ERROR:
                    raise SessionError(f"websocket error: {msg.data}")
                else:
                    raise SessionError("connection closed by the server")
        finally:
            if hb is not None:
                hb.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await hb
            with contextlib.suppress(Exception):
                await ws.close()

    async def _handle_frame(self, data: bytes) -> bool:
        """Decodes one SocketMessage and hands its Events on; True for the enter-room ack."""
        try:
            msg = parse_socket_message(data)
            kind = msg.payload_type
            if kind == SC_ENTER_ROOM_ACK:
                self.enter_acks += 1
                self.heartbeat_ms = enter_ack_heartbeat_ms(payload_bytes(msg, self.cfg.max_inflated_bytes)) or None
                return True
            if kind == SC_HEARTBEAT_ACK:
                return False  # keepalive: proves the socket, not the feed
            if kind == SC_ERROR:
                code, text = sc_error(payload_bytes(msg, self.cfg.max_inflated_bytes))
                self.live_stream_id = None
                raise SessionError(f"the server sent an error (code {code}: {text[:120]}); bootstrapping again")
            out: list[Event] = []
            if kind == SC_FEED_PUSH:
                await self.gifts.refresh()
                self._normalizer.feed(await self._payload(msg), out)
            elif kind == SC_LIVE_WATCHING_LIST:
                out.append(self._normalizer.watching_users(await self._payload(msg)))
            elif kind in (SC_AUTHOR_PAUSE, SC_AUTHOR_RESUME):
                self._set_live(kind == SC_AUTHOR_RESUME)
                out.append(Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "",
                                 {"type": "resumed" if kind == SC_AUTHOR_RESUME else "paused"}))
            elif kind not in IGNORED:
                self._unknown(str(kind))
        except DecodeError as exc:
            self.errors.add(exc.kind, exc.detail)
            return False
        self._touch()
        for ev in out:
            self._emit(ev)
        return False

    async def _payload(self, msg: SocketMessage) -> bytes:
        try:
            return payload_bytes(msg, self.cfg.max_inflated_bytes, INLINE_INFLATE_BYTES)
        except NeedsThread:
            return await asyncio.to_thread(payload_bytes, msg, self.cfg.max_inflated_bytes)

    async def _heartbeats(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        while not ws.closed:
            try:
                await ws.send_bytes(heartbeat(int(time.time() * 1000)))
            except (ConnectionError, aiohttp.ClientError, RuntimeError):
                return
            self.heartbeats_sent += 1
            await asyncio.sleep(self.heartbeat_ms / 1000 if self.heartbeat_ms else self.cfg.heartbeat_s)

    async def _before_reconnect(self, failures: int) -> None:
        self._failures += 1

    def _silence_cause(self) -> str:
        if self.cfg.cookie is None:
            return "no cookie is configured, and Kuaishou often sends an anonymous page no feed (set `cookie`)"
        return "the cookie expired, the websocketinfo call now wants a signature, or the room is quiet"

    async def _on_stop(self) -> None:
        if self._http is not None:
            await self._http.close()
            self._http = None
