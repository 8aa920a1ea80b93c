"""Twitch chat connector: CAP/PASS/NICK/JOIN over the IRC WebSocket, PING/PONG both ways, RECONNECT, token care.

Login as Twitch documents it: `CAP REQ :twitch.tv/tags twitch.tv/commands`, `PASS oauth:<token>`, `NICK <login>`,
wait for 001, `JOIN #<channel>`, wait for our JOIN echo or ROOMSTATE. Anonymous read-only access logs in as
justinfan<digits> with any password. A RECONNECT notice ends the session and the next one starts at once. A
rejected token is refreshed when a refresh token is configured; otherwise the source warns (lastingly) and reads
on anonymously, which Twitch allows for reading.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time

import aiohttp

from danmaku.config import TwitchSource
from danmaku.event import Event
from danmaku.net import client_session, describe_error, ssl_setting
from danmaku.source import DecodeError, SessionError, Source
from danmaku.twitch.auth import AuthFailed, TwitchAuth
from danmaku.twitch.irc import IrcMessage, TwitchNormalizer, parse_line, split_frame

log = logging.getLogger("danmaku.twitch")

_LOGIN_FAILED = ("login authentication failed", "improperly formatted auth", "invalid nick")
_CHANNEL_NOTICES = {"msg_channel_suspended": "the channel is suspended or does not exist",
                    "msg_banned": "this account is banned from the channel",
                    "msg_requires_verified_phone_number": "the channel requires a verified phone number"}


class TwitchChatClient(Source):
    platform = "twitch"
    watches_live_room = True

    def __init__(self, cfg: TwitchSource, room_id: str):
        super().__init__(cfg, room_id)
        self.cfg: TwitchSource = cfg
        self._ssl = ssl_setting(cfg)
        self._http: aiohttp.ClientSession | None = None
        self.auth = TwitchAuth(cfg, self._ssl)
        self._normalizer = TwitchNormalizer(room_id, self.errors.add, self._unknown)
        self.nick = ""
        self.pings_sent = self.pongs_sent = self.reconnect_notices = 0
        self._validating: asyncio.Task[None] | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = client_session(self.cfg.http_timeout_s)
        return self._http

    def _go_anonymous(self, why: str) -> None:
        self._warn(f"{why}; reading the chat anonymously (read-only) meanwhile", until_recovery=False)
        self.auth.token = ""

    async def _login(self) -> tuple[str, str]:
        if not self.auth.anonymous:
            try:
                await self.auth.ensure()
            except AuthFailed as exc:
                self._go_anonymous(str(exc))
        if self.auth.anonymous:
            return f"justinfan{random.randrange(10_000, 100_000_000)}", "SCHMOOPIIE"
        return self.auth.login, f"oauth:{self.auth.token}"

    async def _session(self) -> None:
        nick, password = await self._login()
        self.nick = nick
        try:
            ws = await self._client().ws_connect(
                self.cfg.url, ssl=self._ssl, autoping=True, max_msg_size=self.cfg.max_inflated_bytes,
                timeout=aiohttp.ClientWSTimeout(ws_receive=None, ws_close=2.0))
        except aiohttp.ClientError as exc:
            raise SessionError(f"connect: {describe_error(exc)}") from exc
        try:
            await ws.send_str("CAP REQ :twitch.tv/tags twitch.tv/commands")
            await ws.send_str(f"PASS {password}")
            await ws.send_str(f"NICK {nick}")
            await self._read(ws)
        finally:
            with contextlib.suppress(Exception):
                await ws.close()

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        phase = "login"  # → "join" after 001 → "chat" after the JOIN echo
        deadline = time.monotonic() + self.cfg.login_timeout_s
        ping_sent: float | None = None
        last_rx = time.monotonic()
        out: list[Event] = []
        while True:
            now = time.monotonic()
            if phase != "chat":
                wait = deadline - now
            elif ping_sent is not None:
                wait = ping_sent + self.cfg.pong_timeout_s - now
            else:
                wait = last_rx + self.cfg.ping_s - now
            try:
                msg = await ws.receive(timeout=max(0.01, wait))
            except TimeoutError:
                if phase == "login":
                    raise SessionError(f"no welcome (001) within {self.cfg.login_timeout_s:g} s of logging in") \
                        from None
                if phase == "join":
                    raise SessionError(f"JOIN #{self.cfg.channel} not confirmed within "
                                       f"{self.cfg.login_timeout_s:g} s") from None
                if ping_sent is None:
                    await ws.send_str("PING :tmi.twitch.tv")
                    self.pings_sent += 1
                    ping_sent = time.monotonic()
                    continue
                raise SessionError(f"no PONG within {self.cfg.pong_timeout_s:g} s of our PING: the connection "
                                   "is dead") from None
            last_rx, ping_sent = time.monotonic(), None  # any traffic shows the connection is alive
            if msg.type == aiohttp.WSMsgType.TEXT:
                try:
                    for line in split_frame(msg.data):
                        phase = await self._line(ws, line, phase, out)
                finally:  # lines before a RECONNECT in the same frame still count
                    for ev in out:
                        self._emit(ev)
                    out.clear()
                self._maybe_validate()
            elif msg.type == aiohttp.WSMsgType.BINARY:
                self.errors.add("binary_frame", f"{len(msg.data)} bytes")
            elif msg.type == aiohttp.WSMsgType.ERROR:
                raise SessionError(f"websocket error: {msg.data}")
            else:
                raise SessionError("connection closed by the server")

    async def _line(self, ws: aiohttp.ClientWebSocketResponse, line: str, phase: str, out: list[Event]) -> str:
        try:
            m = parse_line(line)
        except DecodeError as exc:
            self.errors.add(exc.kind, exc.detail)
            return phase
        cmd = m.command
        if cmd == "PING":
            await ws.send_str(f"PONG :{m.trailing or 'tmi.twitch.tv'}")
            self.pongs_sent += 1
        elif cmd == "RECONNECT":
            self.reconnect_notices += 1
            self._reconnect_now()
            raise SessionError("Twitch asked to reconnect (RECONNECT: a chat server is restarting)")
        elif cmd == "NOTICE":
            self._notice(m, phase)
        elif cmd == "001" and phase == "login":
            await ws.send_str(f"JOIN #{self.cfg.channel}")
            return "join"
        elif phase == "join" and (cmd == "ROOMSTATE" or (cmd == "JOIN" and m.nick.lower() == self.nick)):
            self._set_connected(True)
            self._touch()
            return "chat"
        elif cmd == "PART" and m.nick.lower() == self.nick:
            raise SessionError(f"parted from #{self.cfg.channel} by the server")
        elif self._normalizer.handle(m, out):
            self._touch()
        return phase

    def _notice(self, m: IrcMessage, phase: str) -> None:
        text = m.trailing
        if phase == "login" and any(s in text.lower() for s in _LOGIN_FAILED):
            if self.auth.anonymous:
                raise SessionError(f"anonymous login refused: {text[:120]}")
            self.auth.rejected()
            if not self.auth.refreshable:
                self._go_anonymous(f"Twitch refused the token at login ({text[:80]}) and no refresh_token is set")
            raise SessionError(f"login refused: {text[:120]}")
        why = _CHANNEL_NOTICES.get(m.tags.get("msg-id", ""))
        if why is not None:
            self._warn(f"#{self.cfg.channel}: {why} ({text[:120]})", until_recovery=False)

    def _maybe_validate(self) -> None:
        """Hourly validation while connected (Twitch asks for it); a refresh it needs is done off the read loop."""
        if self.auth.anonymous or not self.auth.due() or (self._validating is not None
                                                          and not self._validating.done()):
            return

        async def validate() -> None:
            try:
                await self.auth.ensure()
            except AuthFailed as exc:
                self._warn(f"{exc}; the next connection reads anonymously", until_recovery=False)
                self.auth.token = ""
            except SessionError as exc:
                log.warning("%s/%s: %s", self.room, self.name, exc)

        self._validating = asyncio.create_task(validate())

    def _silence_cause(self) -> str:
        return (f"#{self.cfg.channel} is quiet or offline, or the JOIN was silently dropped (a renamed or "
                "suspended channel)")

    async def _on_stop(self) -> None:
        if self._validating is not None:
            self._validating.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._validating
        if self._http is not None:
            await self._http.close()
            self._http = None
