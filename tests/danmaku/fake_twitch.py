"""A loopback Twitch: the IRC WebSocket (tags, CAP/PASS/NICK/JOIN, PING/PONG, RECONNECT) and id.twitch.tv's
validate/token endpoints, speaking the real wire format (CRLF-terminated IRCv3 lines in text frames)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web
from dm_fakes import FakeServer

CHANNEL = "somestreamer"
ROOM_ID = "12345"


def esc(value: str) -> str:
    """IRCv3 tag value escaping."""
    return (value.replace("\\", "\\\\").replace(";", "\\:").replace(" ", "\\s").replace("\r", "\\r")
            .replace("\n", "\\n"))


def tags(**kv: Any) -> str:
    return "@" + ";".join(f"{k.replace('_', '-')}={esc(str(v))}" for k, v in kv.items())


def privmsg(text: str, *, login: str = "viewer1", name: str = "Viewer1", uid: str = "1001", mid: str = "",
            bits: int = 0, badges: str = "", badge_info: str = "") -> str:
    t: dict[str, Any] = {"badge_info": badge_info, "badges": badges, "color": "#1E90FF", "display_name": name,
                         "emotes": "", "first_msg": 0, "id": mid or str(uuid.uuid4()), "mod": 0,
                         "room_id": ROOM_ID, "subscriber": int("subscriber" in badges),
                         "tmi_sent_ts": int(time.time() * 1000), "turbo": 0, "user_id": uid, "user_type": ""}
    if bits:
        t["bits"] = bits
    return f"{tags(**t)} :{login}!{login}@{login}.tmi.twitch.tv PRIVMSG #{CHANNEL} :{text}"


def usernotice(msg_id: str, *, login: str = "viewer1", name: str = "Viewer1", uid: str = "1001", mid: str = "",
               text: str | None = None, system_msg: str = "", **params: Any) -> str:
    t: dict[str, Any] = {"badge_info": "", "badges": "", "display_name": name, "id": mid or str(uuid.uuid4()),
                         "login": login, "mod": 0, "msg_id": msg_id, "room_id": ROOM_ID,
                         "system_msg": system_msg or f"{name} did {msg_id}", "tmi_sent_ts": int(time.time() * 1000),
                         "user_id": uid, "user_type": ""}
    t.update({f"msg_param_{k}": v for k, v in params.items()})
    line = f"{tags(**t)} :tmi.twitch.tv USERNOTICE #{CHANNEL}"
    return line + (f" :{text}" if text is not None else "")


@dataclass
class TwConn:
    ws: web.WebSocketResponse
    lines: list[str] = field(default_factory=list)  # what the client sent, in order
    nick: str = ""
    password: str = ""
    joined: bool = False
    pongs: list[str] = field(default_factory=list)
    pings: list[str] = field(default_factory=list)


class TwitchFake(FakeServer):
    CLIENT_ID, CLIENT_SECRET = "cid-1", "csecret-1"

    def __init__(self) -> None:
        super().__init__()
        self.conns: list[TwConn] = []
        self.joined = asyncio.Event()
        self.answer_pings = True  # False: the connection looks alive to TCP but nothing answers
        self.valid_tokens: dict[str, str] = {}  # access token → login
        self.refresh_tokens: set[str] = set()
        self.validations: list[str] = []
        self.refreshes: list[dict[str, str]] = []
        r = self.app.router
        r.add_get("/irc", self._ws)
        r.add_get("/oauth2/validate", self._validate)
        r.add_post("/oauth2/token", self._token)

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/irc"

    # ------------------------------------------------------------ id.twitch.tv

    async def _validate(self, req: web.Request) -> web.Response:
        auth = req.headers.get("Authorization", "")
        token = auth[6:] if auth.startswith("OAuth ") else ""
        self.validations.append(token)
        login = self.valid_tokens.get(token)
        if login is None:
            return web.json_response({"status": 401, "message": "invalid access token"}, status=401)
        return web.json_response({"client_id": self.CLIENT_ID, "login": login, "scopes": ["chat:read"],
                                  "user_id": "777", "expires_in": 5000})

    async def _token(self, req: web.Request) -> web.Response:
        form = dict(await req.post())
        self.refreshes.append({k: str(v) for k, v in form.items()})
        ok = (form.get("grant_type") == "refresh_token" and form.get("refresh_token") in self.refresh_tokens
              and form.get("client_id") == self.CLIENT_ID and form.get("client_secret") == self.CLIENT_SECRET)
        if not ok:
            return web.json_response({"status": 400, "message": "Invalid refresh token"}, status=400)
        n = len(self.refreshes)
        token, refresh = f"fresh-{n}", f"refresh-{n + 1}"
        self.refresh_tokens.discard(str(form["refresh_token"]))  # they rotate
        self.refresh_tokens.add(refresh)
        self.valid_tokens[token] = "botacct"
        return web.json_response({"access_token": token, "refresh_token": refresh, "expires_in": 14000,
                                  "scope": ["chat:read"], "token_type": "bearer"})

    # ------------------------------------------------------------ IRC

    async def _ws(self, req: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(req)
        conn = TwConn(ws)
        self.conns.append(conn)
        async for m in ws:
            if m.type != WSMsgType.TEXT:
                continue
            for line in m.data.split("\r\n"):
                if line and not await self._line(conn, line):
                    await ws.close()
                    return ws
        return ws

    async def _line(self, conn: TwConn, line: str) -> bool:
        conn.lines.append(line)
        cmd, _, rest = line.partition(" ")
        ws = conn.ws
        if cmd == "CAP":
            await ws.send_str(":tmi.twitch.tv CAP * ACK :twitch.tv/tags twitch.tv/commands\r\n")
        elif cmd == "PASS":
            conn.password = rest
        elif cmd == "NICK":
            conn.nick = rest.strip().lower()
            anonymous = re.fullmatch(r"justinfan\d+", conn.nick) is not None
            token = conn.password[6:] if conn.password.startswith("oauth:") else None
            if not anonymous and (token is None or self.valid_tokens.get(token) != conn.nick):
                await ws.send_str(":tmi.twitch.tv NOTICE * :Login authentication failed\r\n")
                return False
            n = conn.nick
            await ws.send_str("".join(f":tmi.twitch.tv {code} {n} :{text}\r\n" for code, text in (
                ("001", "Welcome, GLHF!"), ("002", "Your host is tmi.twitch.tv"), ("003", "This server is rather new"),
                ("004", "-"), ("375", "-"), ("372", "You are in a maze of twisty passages, all alike."),
                ("376", ">"))))
        elif cmd == "JOIN":
            chan = rest.strip().lstrip("#")
            n = conn.nick
            if chan != CHANNEL:
                await ws.send_str(f"@msg-id=msg_channel_suspended :tmi.twitch.tv NOTICE #{chan} :This channel does "
                                  "not exist or has been suspended.\r\n")
                return True
            conn.joined = True
            await ws.send_str(
                f":{n}!{n}@{n}.tmi.twitch.tv JOIN #{chan}\r\n:{n}.tmi.twitch.tv 353 {n} = #{chan} :{n}\r\n"
                f":{n}.tmi.twitch.tv 366 {n} #{chan} :End of /NAMES list\r\n"
                f"@emote-only=0;followers-only=-1;r9k=0;room-id={ROOM_ID};slow=0;subs-only=0 "
                f":tmi.twitch.tv ROOMSTATE #{chan}\r\n")
            self.joined.set()
        elif cmd == "PING":
            conn.pings.append(rest)
            if self.answer_pings:
                await ws.send_str(f":tmi.twitch.tv PONG tmi.twitch.tv {rest}\r\n")
        elif cmd == "PONG":
            conn.pongs.append(rest)
        return True

    # ------------------------------------------------------------ driving it

    @property
    def conn(self) -> TwConn:
        return self.conns[-1]

    async def send(self, *lines: str) -> None:
        """Lines to the newest connection, in one text frame as Twitch batches them."""
        await self.conn.ws.send_str("".join(line + "\r\n" for line in lines))

    async def send_frame(self, data: str | bytes) -> None:
        if isinstance(data, bytes):
            await self.conn.ws.send_bytes(data)
        else:
            await self.conn.ws.send_str(data)

    async def ping(self) -> None:
        await self.send("PING :tmi.twitch.tv")

    async def reconnect_notice(self, close_after_s: float = 5.0) -> None:
        """What a restarting chat server does: RECONNECT, then it closes the connection a while later."""
        conn = self.conn
        await self.send(":tmi.twitch.tv RECONNECT")

        async def later() -> None:
            await asyncio.sleep(close_after_s)
            with contextlib.suppress(Exception):
                await conn.ws.close()

        asyncio.get_running_loop().create_task(later())

    async def wait_conns(self, n: int, timeout: float = 5.0) -> TwConn:
        deadline = time.monotonic() + timeout
        while not (len(self.conns) >= n and self.conns[n - 1].joined):
            if time.monotonic() > deadline:
                raise AssertionError(f"only {len(self.conns)} connections (joined: "
                                     f"{[c.joined for c in self.conns]}), wanted {n}")
            await asyncio.sleep(0.02)
        return self.conns[n - 1]
