"""Douyin webcast connector: ttwid + internal room id bootstrap, signed WS URL, PushFrame read loop with acks.

Bootstrap, as the public web client does it: (1) the live home page sets `ttwid`; (2) the room page gives the
internal room id — but a cookie-less first visit may get only a `Set-Cookie: __ac_nonce=…` challenge page, which
a second request carrying that cookie passes. Cookies live in a real jar, sent only to the hosts that set them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import secrets
import string
import time
import urllib.parse

import aiohttp
from yarl import URL

from danmaku.config import DouyinWebSource
from danmaku.douyin.messages import (
    DouyinNormalizer,
    Response,
    decode_payload,
    encode_push_frame,
    parse_push_frame,
)
from danmaku.event import Event
from danmaku.net import client_session, describe_error, fetch, ssl_setting
from danmaku.source import INLINE_INFLATE_BYTES, DecodeError, NeedsThread, SessionError, Source

log = logging.getLogger("danmaku.douyin")

_ROOM_ID = re.compile(rb'roomId\\?":\\?"(\d+)\\?"')
AC_NONCE = "__ac_nonce"


class DouyinWebClient(Source):
    platform = "douyin"
    watches_live_room = True

    def __init__(self, cfg: DouyinWebSource, room_id: str):
        super().__init__(cfg, room_id)
        self.cfg: DouyinWebSource = cfg
        self._ssl = ssl_setting(cfg)
        self._http: aiohttp.ClientSession | None = None
        from danmaku.douyin.signer import make_signer

        self._signer = make_signer(cfg.signer, self._ssl)
        self._ttwid: str | None = cfg.ttwid.get_secret_value() if cfg.ttwid is not None else None
        self._jar = aiohttp.CookieJar(unsafe=True, quote_cookie=False)  # unsafe: also IP hosts (tests, proxies)
        self.challenges_passed = 0
        self.internal_room_id: str | None = None
        self._did = str(random.randrange(7_000_000_000_000_000_000, 7_999_999_999_999_999_999))
        self._url_index = 0
        self._failures = 0
        self.heartbeats_sent = 0
        self.acks_sent = 0
        self.last_signature = ""
        self._normalizer = DouyinNormalizer(room_id, self.errors.add, self._unknown, self._set_live,
                                            cfg.combo_timeout_s)
        self._combo_clock: asyncio.Task[None] | None = None
        self._combo_wake = asyncio.Event()

    def _client(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = client_session(self.cfg.http_timeout_s, self.cfg.user_agent, cookie_jar=self._jar)
        return self._http

    async def _get_text(self, url: str, what: str) -> bytes:
        status, body = await fetch(self._client(), "GET", url, ssl_arg=self._ssl, what=what)
        if status >= 400:
            raise SessionError(f"{what}: HTTP {status}")
        return body

    def _cookie(self, name: str, url: URL) -> str | None:
        morsel = self._jar.filter_cookies(url).get(name)
        return morsel.value if morsel is not None and morsel.value else None

    async def _bootstrap(self) -> None:
        live = URL(self.cfg.live_base + "/")
        if self._ttwid is None:
            await self._get_text(str(live), "bootstrap step 1 (live home page)")
            self._ttwid = self._cookie("ttwid", live)
            if self._ttwid is None:
                raise SessionError("bootstrap step 1 (live home page): no ttwid cookie was set; the page changed "
                                   "shape (set ttwid in the config from a browser meanwhile)")
        ms_token = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(107))
        self._jar.update_cookies({"ttwid": self._ttwid, "msToken": ms_token}, live)
        room_url = f"{self.cfg.live_base}/{self.cfg.web_rid}"
        what = "bootstrap step 2 (room page)"
        body = await self._get_text(room_url, what)
        m = _ROOM_ID.search(body)
        if m is None and self._cookie(AC_NONCE, URL(room_url)) is not None:
            # The first-visit challenge: the page only set __ac_nonce. Ask again with it, as the web client does.
            body = await self._get_text(room_url, what + " with the __ac_nonce cookie")
            m = _ROOM_ID.search(body)
            if m is None:
                raise SessionError(f"{what}: still the first-visit challenge after sending __ac_nonce back; Douyin "
                                   "may now also want __ac_signature (computed by its acrawler JS): set ttwid from "
                                   "a browser session")
            self.challenges_passed += 1
        if m is None:
            raise SessionError(f"{what}: no roomId in the page: the room is gone, or the page changed shape "
                               f"({len(body)} bytes, no challenge cookie)")
        self.internal_room_id = m.group(1).decode()

    def _params(self) -> dict[str, str]:
        now_ms = int(time.time() * 1000)
        room = self.internal_room_id or ""
        return {
            "app_name": "douyin_web", "version_code": "180800", "webcast_sdk_version": "1.0.14-beta.0",
            "update_version_code": "1.0.14-beta.0", "compress": "gzip", "device_platform": "web",
            "cookie_enabled": "true", "screen_width": "1920", "screen_height": "1080", "browser_language": "zh-CN",
            "browser_platform": "Win32", "browser_name": "Mozilla", "browser_version": "5.0",
            "browser_online": "true", "tz_name": "Asia/Shanghai",
            "cursor": f"d-1_u-1_fh-1_t-{now_ms}_r-1",
            "internal_ext": f"internal_src:dim|wss_push_room_id:{room}|wss_push_did:{self._did}"
                            f"|first_req_ms:{now_ms}|fetch_time:{now_ms}|seq:1|wss_info:0-{now_ms}-0-0|wrds_v:0",
            "host": "https://live.douyin.com", "aid": "6383", "live_id": "1", "did_rule": "3", "endpoint": "live_pc",
            "support_wrds": "1", "user_unique_id": self._did, "im_path": "/webcast/im/fetch/",
            "identity": "audience", "need_persist_msg_count": "15", "insert_task_id": "", "live_reason": "",
            "room_id": room, "heartbeatDuration": "0",
        }

    async def _session(self) -> None:
        from danmaku.douyin.signer import x_ms_stub

        if self.internal_room_id is None or self._failures >= max(3, len(self.cfg.ws_urls)):
            await self._bootstrap()
            self._failures = 0
        base = self.cfg.ws_urls[self._url_index % len(self.cfg.ws_urls)]
        self._url_index += 1
        params = self._params()
        url = base + ("&" if "?" in base else "?") + urllib.parse.urlencode(params)
        signature = await self._signer.sign(x_ms_stub(params), url)
        self.last_signature = signature
        url += "&" + urllib.parse.urlencode({"signature": signature})
        headers = {"Cookie": f"ttwid={self._ttwid}", "User-Agent": self.cfg.user_agent,
                   "Origin": "https://live.douyin.com"}
        try:
            ws = await self._client().ws_connect(
                url, headers=headers, ssl=self._ssl, autoping=True, max_msg_size=self.cfg.max_inflated_bytes,
                timeout=aiohttp.ClientWSTimeout(ws_receive=None, ws_close=2.0),
            )
        except aiohttp.WSServerHandshakeError as exc:
            # A refused upgrade is usually a stale or rejected signature, or an expired room id.
            self.internal_room_id = None
            raise SessionError(f"websocket upgrade refused: HTTP {exc.status} (signature rejected?)") from exc
        except aiohttp.ClientError as exc:
            raise SessionError(f"connect: {describe_error(exc)}") from exc
        self._set_connected(True)
        self._failures = 0
        if self._combo_clock is None or self._combo_clock.done():
            # Lives across sessions: a combo cut by a reconnect is closed by its end frame on the next socket,
            # or by this clock, never by the reconnect itself.
            self._combo_clock = asyncio.create_task(self._close_stale_combos())
        hb = asyncio.create_task(self._heartbeats(ws))
        try:
            while True:
                try:
                    msg = await ws.receive(timeout=self.cfg.read_timeout_s)
                except TimeoutError as exc:
                    raise SessionError(f"no data for {self.cfg.read_timeout_s:g} s") from exc
                if msg.type == aiohttp.WSMsgType.BINARY:
                    ack = await self._handle_frame(msg.data)
                    if ack is not None:
                        await ws.send_bytes(ack)
                        self.acks_sent += 1
                elif msg.type == aiohttp.WSMsgType.TEXT:
                    self.errors.add("text_frame", msg.data[:80])
                elif msg.type == aiohttp.WSMsgType.ERROR:
                    raise SessionError(f"websocket error: {msg.data}")
                elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED):
                    raise SessionError("connection closed by the server")
        finally:
            hb.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await hb
            with contextlib.suppress(Exception):
                await ws.close()

    async def _handle_frame(self, data: bytes) -> bytes | None:
        """Decodes one PushFrame; returns the ack frame to send when the server asked for one."""
        try:
            frame = parse_push_frame(data)
            if frame.payload_type == "hb":
                return None
            if frame.payload_type == "close":
                raise SessionError("the server sent a close frame")
            if frame.payload_type not in ("msg", ""):
                return None
            limit = self.cfg.max_inflated_bytes
            resp: Response
            try:
                resp = decode_payload(frame, limit, INLINE_INFLATE_BYTES)
            except NeedsThread:
                resp = await asyncio.to_thread(decode_payload, frame, limit)
        except DecodeError as exc:
            self.errors.add(exc.kind, exc.detail)
            return None
        self._touch()
        out: list[Event] = []
        self._normalizer.feed(resp.messages, out)
        if self._normalizer.next_deadline() is not None:
            self._combo_wake.set()
        for ev in out:
            self._emit(ev)
        if resp.need_ack:
            return encode_push_frame("ack", resp.internal_ext.encode(), frame.log_id)
        return None

    async def _heartbeats(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        frame = encode_push_frame("hb")
        while not ws.closed:
            try:
                await ws.send_bytes(frame)
            except (ConnectionError, aiohttp.ClientError, RuntimeError):
                return
            self.heartbeats_sent += 1
            await asyncio.sleep(self.cfg.heartbeat_s)

    async def _close_stale_combos(self) -> None:
        """Counts each combo whose end frame never came combo_timeout_s after its last step, traffic or not."""
        while True:
            deadline = self._normalizer.next_deadline()
            if deadline is None:
                self._combo_wake.clear()
                await self._combo_wake.wait()
                continue
            delay = deadline - time.monotonic()
            if delay > 0:
                # Woken early when a new combo starts (its deadline cannot be earlier, but this keeps it simple).
                with contextlib.suppress(TimeoutError):
                    self._combo_wake.clear()
                    await asyncio.wait_for(self._combo_wake.wait(), delay)
                continue
            out: list[Event] = []
            self._normalizer.flush(out)
            for ev in out:
                self._emit(ev)

    async def _before_reconnect(self, failures: int) -> None:
        self._failures += 1

    def _silence_cause(self) -> str:
        if self.cfg.signer.type == "none":
            return "no URL signature is configured (signer: none), so the server likely ignores this connection"
        return "the URL signature is stale or rejected (update the signer), or the ttwid cookie expired"

    def _last_events(self) -> list[Event]:
        # Stopping for good: a combo still open is counted now rather than lost.
        out: list[Event] = []
        self._normalizer.flush(out, force=True)
        return out

    async def _on_stop(self) -> None:
        if self._combo_clock is not None:
            self._combo_clock.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._combo_clock
        if self._http is not None:
            await self._http.close()
            self._http = None
