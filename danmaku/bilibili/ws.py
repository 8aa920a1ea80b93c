"""The Bilibili WebSocket session shared by the web client and the open platform: auth, heartbeats, read loop."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from abc import abstractmethod
from collections.abc import Callable
from typing import Any

import aiohttp

from danmaku.bilibili.packet import OP_AUTH, OP_HEARTBEAT, FrameResult, PacketDecoder, make_packet
from danmaku.event import Event
from danmaku.net import describe_error, ssl_setting
from danmaku.source import INLINE_INFLATE_BYTES, NeedsThread, SessionError, Source

HEARTBEAT_BODY = b"{}"


class AuthRejected(SessionError):
    """The server answered the op-7 auth with a non-zero code."""


class BiliWsSource(Source):
    """Subclasses prepare a session (`_prepare`: URL, auth body) and turn command bodies into Events."""

    platform = "bilibili"

    def __init__(self, cfg: Any, room_id: str):
        super().__init__(cfg, room_id)
        self._ssl = ssl_setting(cfg)
        self._http: aiohttp.ClientSession | None = None
        self._decoder = PacketDecoder(self.errors.add, cfg.max_inflated_bytes)
        self.popularity: int | None = None
        self.heartbeats_sent = 0
        self._normalize: Callable[[list[bytes], list[Event]], int] = lambda bodies, out: 0

    @abstractmethod
    def _http_client(self) -> aiohttp.ClientSession: ...

    @abstractmethod
    async def _prepare(self) -> tuple[str, bytes, dict[str, str]]:
        """Returns (ws URL, auth body, extra WS headers) for the next connection attempt."""

    def _auth_ok(self) -> None:
        """Called after a successful auth reply."""

    def _on_auth_rejected(self, code: Any) -> None:
        """Called when the auth reply carries a non-zero code (e.g. drop the cached token)."""

    async def _session(self) -> None:
        url, auth_body, headers = await self._prepare()
        http = self._http_client()
        try:
            ws = await http.ws_connect(
                url,
                ssl=self._ssl,
                headers=headers,
                autoping=True,
                max_msg_size=self.cfg.max_inflated_bytes,
                timeout=aiohttp.ClientWSTimeout(ws_receive=None, ws_close=2.0),
            )
        except (aiohttp.ClientError, aiohttp.WSServerHandshakeError) as exc:
            if isinstance(exc, aiohttp.ClientConnectorError):  # its description names the host already
                raise SessionError(describe_error(exc)) from exc
            raise SessionError(f"connect {_host(url)}: {describe_error(exc)}") from exc
        heartbeat: asyncio.Task[None] | None = None
        try:
            await ws.send_bytes(make_packet(OP_AUTH, auth_body))
            await self._await_auth(ws)
            self._set_connected(True)
            self._auth_ok()
            heartbeat = asyncio.create_task(self._heartbeats(ws))
            read_timeout = self.cfg.heartbeat_s + 5.0
            while True:
                try:
                    msg = await ws.receive(timeout=read_timeout)
                except TimeoutError as exc:
                    raise SessionError(f"no data from the server for {read_timeout:.0f} s") from exc
                await self._handle_ws_message(msg)
        finally:
            if heartbeat is not None:
                heartbeat.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await heartbeat
            with contextlib.suppress(Exception):
                await ws.close()

    async def _await_auth(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        deadline = time.monotonic() + self.cfg.auth_timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SessionError(f"no auth reply within {self.cfg.auth_timeout_s:g} s")
            try:
                msg = await ws.receive(timeout=left)
            except TimeoutError as exc:
                raise SessionError(f"no auth reply within {self.cfg.auth_timeout_s:g} s") from exc
            res = await self._handle_ws_message(msg)
            if res is None or res.auth_code_body is None:
                continue
            try:
                reply = json.loads(res.auth_code_body) if res.auth_code_body else {"code": 0}
                code = reply.get("code", 0) if isinstance(reply, dict) else None
            except (ValueError, UnicodeDecodeError):
                code = None
            if code == 0:
                return
            self._on_auth_rejected(code)
            raise AuthRejected(f"auth rejected by the server (code {code}); fetching a new token")

    async def _decode(self, data: bytes) -> FrameResult:
        """Decodes a frame on the loop while it stays small; a big one (a burst, a bomb) in a worker thread."""
        try:
            return self._decoder.decode_inline(data, INLINE_INFLATE_BYTES)
        except NeedsThread:
            res, errors = await asyncio.to_thread(self._decoder.decode_collecting, data)
            for kind, detail in errors:
                self.errors.add(kind, detail)
            return res

    async def _handle_ws_message(self, msg: aiohttp.WSMessage) -> FrameResult | None:
        if msg.type == aiohttp.WSMsgType.BINARY:
            res = await self._decode(msg.data)
            if res.popularity is not None:
                self.popularity = res.popularity
            if res.commands:
                self._touch()
                out: list[Event] = []
                self._normalize(res.commands, out)
                for ev in out:
                    self._emit(ev)
            return res
        if msg.type == aiohttp.WSMsgType.TEXT:
            self.errors.add("text_frame", msg.data[:80])
            return None
        if msg.type == aiohttp.WSMsgType.ERROR:
            exc = msg.data
            if isinstance(exc, aiohttp.WebSocketError) and exc.code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG:
                self.errors.add("too_large", str(exc))
            raise SessionError(f"websocket error: {exc}")
        if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED):
            raise SessionError("connection closed by the server")
        return None

    async def _heartbeats(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        # One at once after auth, then every heartbeat_s (the server drops us after ~60 s without one).
        packet = make_packet(OP_HEARTBEAT, HEARTBEAT_BODY)
        while not ws.closed:
            try:
                await ws.send_bytes(packet)
            except (ConnectionError, aiohttp.ClientError, RuntimeError):
                return
            self.heartbeats_sent += 1
            await asyncio.sleep(self.cfg.heartbeat_s)

    async def _close_http(self) -> None:
        if self._http is not None:
            await self._http.close()
            self._http = None


def _host(url: str) -> str:
    with contextlib.suppress(Exception):
        from yarl import URL

        u = URL(url)
        return f"{u.host}:{u.port}"
    return "?"
