"""Loopback fakes of the platform side (Bilibili web/open, Douyin webcast/push) speaking the real wire formats."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gzip
import hashlib
import hmac
import json
import ssl
import struct
import subprocess
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import brotli
from aiohttp import WSMsgType, web

from danmaku import pb
from danmaku.bilibili import wbi
from danmaku.event import Event
from tests.support.programs import require_program

HDR = struct.Struct(">IHHII")
IMG_KEY = "7cd084941338484aae1ad9425b84077c"
SUB_KEY = "4932caff0ff746eab6f01bf08b70ac45"


def packet(op: int, body: bytes, ver: int = 0, seq: int = 0) -> bytes:
    return HDR.pack(16 + len(body), 16, ver, op, seq) + body


def cmd_packet(obj: dict[str, Any]) -> bytes:
    return packet(5, json.dumps(obj, ensure_ascii=False).encode())


def brotli_frame(packets: list[bytes]) -> bytes:
    return packet(5, brotli.compress(b"".join(packets)), ver=3)


def zlib_frame(packets: list[bytes]) -> bytes:
    return packet(5, zlib.compress(b"".join(packets)), ver=2)


def parse_packets(data: bytes) -> list[tuple[int, int, bytes]]:
    out = []
    off = 0
    while off + 16 <= len(data):
        ln, hl, ver, op, _ = HDR.unpack_from(data, off)
        out.append((op, ver, data[off + hl : off + ln]))
        off += ln
    return out


# ------------------------------------------------------------------ TLS


@dataclass
class Tls:
    ca_file: Path
    server_ctx: ssl.SSLContext


def make_tls(tmp: Path) -> Tls:
    """A throwaway CA and a server certificate for 127.0.0.1/localhost, made with the openssl CLI."""
    openssl = require_program("openssl")
    ca_key, ca_crt = tmp / "ca.key", tmp / "ca.crt"
    key, csr, crt, ext = tmp / "srv.key", tmp / "srv.csr", tmp / "srv.crt", tmp / "ext.cnf"

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca_crt),
        "-days", "2", "-subj", "/CN=test-ca", "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr), "-subj", "/CN=127.0.0.1")
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                   "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")
    run("x509", "-req", "-in", str(csr), "-CA", str(ca_crt), "-CAkey", str(ca_key), "-CAcreateserial",
        "-out", str(crt), "-days", "2", "-extfile", str(ext))
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(str(crt), str(key))
    return Tls(ca_crt, ctx)


# ------------------------------------------------------------------ generic server


class FakeServer:
    def __init__(self) -> None:
        self.app = web.Application()
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.scheme = "http"

    async def start(self, ssl_context: ssl.SSLContext | None = None) -> None:
        self.runner = web.AppRunner(self.app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0, ssl_context=ssl_context)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.scheme = "https" if ssl_context else "http"

    @property
    def base(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()


# ------------------------------------------------------------------ Bilibili web


@dataclass
class BiliConn:
    ws: web.WebSocketResponse
    auth: dict[str, Any]
    heartbeats: list[float] = field(default_factory=list)
    authed_at: float = 0.0


class BiliWebFake(FakeServer):
    """nav, home page (buvid3), get_info, WBI-checked getDanmuInfo and the /sub WebSocket."""

    REAL_ROOM = 21000
    ANCHOR = 77

    def __init__(self, *, protover_compress: str = "brotli"):
        super().__init__()
        self.compress = protover_compress
        self.tokens_issued: list[str] = []
        self.reject_tokens: set[str] = set()
        self.conns: list[BiliConn] = []
        self.auth_bodies: list[dict[str, Any]] = []
        self.danmu_info_calls = 0
        self.wbi_failures = 0
        self.user_agents: list[str] = []
        self.connected = asyncio.Event()
        self.answer_auth = True
        self.wbi_fail_next = 0  # answer -352 this many times
        self.extra_hosts: list[dict[str, Any]] = []  # listed before the live one (dead hosts for rotation)
        self.nav_calls = 0
        self.popularity = 2466  # what heartbeat replies report (≤ 1: nobody watching)
        r = self.app.router
        r.add_get("/x/web-interface/nav", self._nav)
        r.add_get("/", self._home)
        r.add_get("/room/v1/Room/get_info", self._room)
        r.add_get("/xlive/web-room/v1/index/getDanmuInfo", self._danmu_info)
        r.add_get("/sub", self._ws)

    async def _nav(self, req: web.Request) -> web.Response:
        self.nav_calls += 1
        self.user_agents.append(req.headers.get("User-Agent", ""))
        logged = "SESSDATA=good" in req.headers.get("Cookie", "")
        wbi_img = {"img_url": f"https://i0.hdslb.com/bfs/wbi/{IMG_KEY}.png",
                   "sub_url": f"https://i0.hdslb.com/bfs/wbi/{SUB_KEY}.png"}
        if logged:
            return web.json_response({"code": 0, "data": {"isLogin": True, "mid": 4242, "wbi_img": wbi_img}})
        return web.json_response({"code": -101, "message": "账号未登录", "data": {"isLogin": False,
                                                                              "wbi_img": wbi_img}})

    async def _home(self, req: web.Request) -> web.Response:
        resp = web.Response(text="<html></html>", content_type="text/html")
        resp.set_cookie("buvid3", "FAKE-BUVID-infoc")
        return resp

    async def _room(self, req: web.Request) -> web.Response:
        if req.query.get("room_id") not in ("5", str(self.REAL_ROOM)):
            return web.json_response({"code": 1, "message": "no room"})
        return web.json_response({"code": 0, "data": {"room_id": self.REAL_ROOM, "short_id": 5, "uid": self.ANCHOR,
                                                      "live_status": 1}})

    async def _danmu_info(self, req: web.Request) -> web.Response:
        self.danmu_info_calls += 1
        q = dict(req.query)
        w_rid = q.pop("w_rid", None)
        wts = q.pop("wts", None)
        if w_rid is None or wts is None or self.wbi_fail_next > 0:
            self.wbi_fail_next -= 1
            self.wbi_failures += 1
            return web.json_response({"code": -352, "message": "-352"})
        expected = wbi.sign(q, IMG_KEY, SUB_KEY, wts=int(wts))["w_rid"]
        if expected != w_rid or abs(int(wts) - time.time()) > 300:
            self.wbi_failures += 1
            return web.json_response({"code": -352, "message": "-352"})
        token = f"tok{len(self.tokens_issued) + 1}"
        self.tokens_issued.append(token)
        return web.json_response({"code": 0, "data": {
            "group": "live", "token": token,
            "host_list": [*self.extra_hosts,
                          {"host": "127.0.0.1", "port": 2243, "ws_port": self.port, "wss_port": self.port}],
        }})

    async def _ws(self, req: web.Request) -> web.WebSocketResponse:
        self.user_agents.append(req.headers.get("User-Agent", ""))
        ws = web.WebSocketResponse()
        await ws.prepare(req)
        try:
            msg = await asyncio.wait_for(ws.receive(), 5.0)
        except TimeoutError:
            await ws.close()
            return ws
        if msg.type != WSMsgType.BINARY:
            await ws.close()
            return ws
        pk = parse_packets(msg.data)
        if not pk or pk[0][0] != 7:
            await ws.close()
            return ws
        auth = json.loads(pk[0][2])
        self.auth_bodies.append(auth)
        if not self.answer_auth:
            async for _ in ws:  # say nothing until the client gives up
                pass
            return ws
        ok = auth.get("roomid") == self.REAL_ROOM and auth.get("key") in self.tokens_issued \
            and auth.get("key") not in self.reject_tokens
        await ws.send_bytes(packet(8, json.dumps({"code": 0 if ok else -101}).encode(), ver=1, seq=1))
        if not ok:
            await ws.close()
            return ws
        conn = BiliConn(ws, auth, authed_at=time.monotonic())
        self.conns.append(conn)
        self.connected.set()
        async for m in ws:
            if m.type != WSMsgType.BINARY:
                continue
            for op, _ver, body in parse_packets(m.data):
                if op == 2:
                    conn.heartbeats.append(time.monotonic())
                    # The quirk: pack_len covers the 4-byte popularity only; the echo follows outside it.
                    await ws.send_bytes(HDR.pack(20, 16, 1, 3, 0) + self.popularity.to_bytes(4, "big") + body)
        return ws

    async def push(self, packets: list[bytes], per_frame: int = 3) -> None:
        """Sends commands to the newest connection, compressed `per_frame` packets per WS message."""
        ws = self.conns[-1].ws
        for i in range(0, len(packets), per_frame):
            chunk = packets[i : i + per_frame]
            frame = brotli_frame(chunk) if self.compress == "brotli" else zlib_frame(chunk)
            await ws.send_bytes(frame)

    async def send_raw(self, data: bytes) -> None:
        await self.conns[-1].ws.send_bytes(data)

    async def drop_all(self) -> None:
        for c in self.conns:
            await c.ws.close()


# ------------------------------------------------------------------ Bilibili open platform


class BiliOpenFake(FakeServer):
    KEY_ID, KEY_SECRET, APP_ID, CODE = "AKID", "AKSECRET", 1650000000001, "IDCODE"

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.bad_signatures = 0
        self.games = 0
        self.heartbeat_code = 0
        self.down = False  # an outage: start fails and the WebSocket closes at once
        self.conns: list[BiliConn] = []
        self.ws_heartbeats: list[float] = []
        self.connected = asyncio.Event()
        r = self.app.router
        r.add_post("/v2/app/start", self._start)
        r.add_post("/v2/app/heartbeat", self._heartbeat)
        r.add_post("/v2/app/end", self._end)
        r.add_get("/sub", self._ws)

    def _check(self, req: web.Request, body: bytes) -> bool:
        h = req.headers
        names = ["x-bili-accesskeyid", "x-bili-content-md5", "x-bili-signature-method", "x-bili-signature-nonce",
                 "x-bili-signature-version", "x-bili-timestamp"]
        if any(n not in h for n in names):
            return False
        if h["x-bili-content-md5"] != hashlib.md5(body).hexdigest() or h["x-bili-accesskeyid"] != self.KEY_ID:
            return False
        string = "\n".join(f"{n}:{h[n]}" for n in sorted(names))
        sig = hmac.new(self.KEY_SECRET.encode(), string.encode(), hashlib.sha256).hexdigest()
        return hmac.compare_digest(sig, h.get("Authorization", ""))

    async def _api(self, req: web.Request, name: str) -> dict[str, Any] | None:
        body = await req.read()
        if not self._check(req, body):
            self.bad_signatures += 1
            return None
        data = json.loads(body)
        self.calls.append((name, data))
        return data

    async def _start(self, req: web.Request) -> web.Response:
        data = await self._api(req, "start")
        if data is None:
            return web.json_response({"code": 4002, "message": "signature invalid"})
        if self.down:
            return web.json_response({"code": 5000, "message": "service unavailable"})
        if data.get("code") != self.CODE or data.get("app_id") != self.APP_ID:
            return web.json_response({"code": 7007, "message": "bad code"})
        self.games += 1
        game_id = f"game-{self.games}"
        auth_body = json.dumps({"roomid": 9000, "protoover": 2, "key": f"k{self.games}", "game_id": game_id})
        return web.json_response({"code": 0, "message": "0", "request_id": "r", "data": {
            "game_info": {"game_id": game_id},
            "websocket_info": {"auth_body": auth_body, "wss_link": [f"ws://127.0.0.1:{self.port}/sub"]},
            "anchor_info": {"room_id": 9000, "uid": 5, "open_id": "anchor-open", "uname": "主播"},
        }})

    async def _heartbeat(self, req: web.Request) -> web.Response:
        data = await self._api(req, "heartbeat")
        if data is None:
            return web.json_response({"code": 4002})
        return web.json_response({"code": self.heartbeat_code, "message": ""})

    async def _end(self, req: web.Request) -> web.Response:
        data = await self._api(req, "end")
        return web.json_response({"code": 0 if data is not None else 4002})

    async def _ws(self, req: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(req)
        if self.down:
            await ws.close()
            return ws
        msg = await asyncio.wait_for(ws.receive(), 5.0)
        pk = parse_packets(msg.data)
        expected = json.dumps({"roomid": 9000, "protoover": 2, "key": f"k{self.games}", "game_id": f"game-{self.games}"})
        ok = pk and pk[0][0] == 7 and pk[0][2] == expected.encode()
        await ws.send_bytes(packet(8, json.dumps({"code": 0 if ok else -101}).encode(), ver=1))
        if not ok:
            await ws.close()
            return ws
        conn = BiliConn(ws, json.loads(pk[0][2]), authed_at=time.monotonic())
        self.conns.append(conn)
        self.connected.set()
        async for m in ws:
            if m.type == WSMsgType.BINARY:
                for op, _v, body in parse_packets(m.data):
                    if op == 2:
                        conn.heartbeats.append(time.monotonic())
                        await ws.send_bytes(HDR.pack(20, 16, 1, 3, 0) + (1).to_bytes(4, "big") + body)
        return ws

    async def push(self, cmds: list[dict[str, Any]]) -> None:
        await self.conns[-1].ws.send_bytes(zlib_frame([cmd_packet(c) for c in cmds]))

    async def drop_all(self) -> None:
        for c in self.conns:
            await c.ws.close()


# ------------------------------------------------------------------ Douyin webcast


def push_frame(payload: bytes, payload_type: str = "msg", log_id: int = 0, encoding: str = "gzip") -> bytes:
    return pb.encode([(1, 1), (2, log_id), (6, encoding), (7, payload_type), (8, payload)])


def dy_user(uid: int, name: str, level: int = 0) -> list[tuple[int, Any]]:
    return [(1, uid), (3, name), (9, [(1, f"https://p3.douyinpic.com/{uid}.jpg")]), (38, f"d{uid}"),
            (46, f"sec{uid}"), (1028, str(uid))]


def dy_common(method: str, msg_id: int) -> list[tuple[int, Any]]:
    return [(1, method), (2, msg_id), (3, 7300000000000000001), (4, int(time.time() * 1000))]


def dy_response(messages: list[tuple[str, bytes, int]], need_ack: bool, internal_ext: str) -> bytes:
    msgs = [(1, [(1, method), (2, payload), (3, mid)]) for method, payload, mid in messages]
    return pb.encode([*msgs, (2, "cursor-1"), (5, internal_ext), (9, need_ack)])


@dataclass
class DyConn:
    ws: web.WebSocketResponse
    query: dict[str, str]
    heartbeats: list[float] = field(default_factory=list)
    acks: list[tuple[int, bytes]] = field(default_factory=list)


class DouyinWebFake(FakeServer):
    ROOM_ID = "7300000000000000001"

    def __init__(self) -> None:
        super().__init__()
        self.conns: list[DyConn] = []
        self.connected = asyncio.Event()
        self.acked = asyncio.Event()
        self.cookies_seen: list[str] = []
        # The anti-bot first visit: a room page request without __ac_nonce gets only that cookie and no room data.
        self.ac_challenge = False
        self.room_page_roomless = False  # the page changed shape: never any roomId
        r = self.app.router
        self.sign_requests: list[dict[str, Any]] = []
        r.add_get("/", self._home)
        r.add_post("/sign", self._sign)
        r.add_get("/webcast/im/push/v2/", self._ws)
        r.add_get("/{web_rid}", self._room)

    async def _home(self, req: web.Request) -> web.Response:
        resp = web.Response(text="<html></html>", content_type="text/html")
        resp.set_cookie("ttwid", "1%7Cfake-ttwid")
        return resp

    async def _sign(self, req: web.Request) -> web.Response:
        body = await req.json()
        self.sign_requests.append(body)
        return web.json_response({"signature": "SIG-" + body["x_ms_stub"][:8]})

    async def _room(self, req: web.Request) -> web.Response:
        cookie = req.headers.get("Cookie", "")
        self.cookies_seen.append(cookie)
        if self.ac_challenge and "__ac_nonce=" not in cookie:
            resp = web.Response(text="<html><head><script>/* acrawler challenge */</script></head></html>",
                                content_type="text/html")
            resp.set_cookie("__ac_nonce", "0673f1a2b00e5d1c8a4f1", path="/")
            return resp
        if "ttwid=" not in cookie:
            return web.Response(status=403)
        if self.room_page_roomless:
            return web.Response(text="<html><body>新版页面</body></html>", content_type="text/html")
        html = f'<script>self.__pace_f.push([1,"{{\\"state\\":{{\\"roomStore\\":{{\\"roomInfo\\":{{\\"roomId\\":\\"{self.ROOM_ID}\\"'
        return web.Response(text=html + "}}}}]</script>", content_type="text/html")

    async def _ws(self, req: web.Request) -> web.WebSocketResponse:
        q = dict(req.query)
        if q.get("room_id") != self.ROOM_ID or not q.get("signature") or "ttwid=" not in req.headers.get("Cookie", ""):
            return web.Response(status=403)  # type: ignore[return-value]
        ws = web.WebSocketResponse()
        await ws.prepare(req)
        conn = DyConn(ws, q)
        self.conns.append(conn)
        self.connected.set()
        async for m in ws:
            if m.type != WSMsgType.BINARY:
                continue
            f = pb.decode(m.data)
            ptype = pb.get_str(f, 7)
            if ptype == "hb":
                conn.heartbeats.append(time.monotonic())
                await ws.send_bytes(pb.encode([(7, "hb")]))
            elif ptype == "ack":
                conn.acks.append((pb.get_int(f, 2), pb.get_bytes(f, 8)))
                self.acked.set()
        return ws

    async def push(self, messages: list[tuple[str, bytes, int]], *, need_ack: bool = False, log_id: int = 1,
                   internal_ext: str = "ext-1") -> None:
        resp = dy_response(messages, need_ack, internal_ext)
        await self.conns[-1].ws.send_bytes(push_frame(gzip.compress(resp), log_id=log_id))

    async def drop_all(self) -> None:
        for c in self.conns:
            await c.ws.close()


# ------------------------------------------------------------------ Douyin open platform (token + tasks)


class DouyinOpenFake(FakeServer):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        r = self.app.router
        r.add_post("/token", self._token)
        r.add_post("/api/webcastmate/info", self._info)
        r.add_post("/api/live_data/task/start", self._task("start"))
        r.add_post("/api/live_data/task/stop", self._task("stop"))

    async def _token(self, req: web.Request) -> web.Response:
        body = await req.json()
        self.calls.append(("token", body, dict(req.headers)))
        if body.get("secret") != "APPSECRET":
            return web.json_response({"err_no": 40001, "err_tips": "bad secret"})
        return web.json_response({"err_no": 0, "data": {"access_token": "ACCESS", "expires_in": 7200}})

    async def _info(self, req: web.Request) -> web.Response:
        body = await req.json()
        self.calls.append(("info", body, dict(req.headers)))
        if req.headers.get("X-Token") != "ACCESS":
            return web.json_response({"err_no": 40022})
        return web.json_response({"data": {"info": {"room_id": 7311111111111111111, "anchor_open_id": "a",
                                                    "nick_name": "主播"}}})

    def _task(self, name: str) -> Any:
        async def handler(req: web.Request) -> web.Response:
            body = await req.json()
            self.calls.append((name, body, dict(req.headers)))
            if req.headers.get("access-token") != "ACCESS":
                return web.json_response({"err_no": 40022, "err_msg": "bad token"})
            return web.json_response({"err_no": 0, "err_msg": "", "data": {"task_id": f"t-{body['msg_type']}"}})

        return handler


def douyin_push_signature(headers: dict[str, str], body: str, secret: str) -> str:
    keys = sorted(k for k in headers if k not in ("x-signature", "content-type"))
    raw = "&".join(f"{k}={headers[k]}" for k in keys) + body + secret
    return base64.b64encode(hashlib.md5(raw.encode()).digest()).decode()


# ------------------------------------------------------------------ driving a Source in tests


class Collector:
    def __init__(self, source: Any) -> None:
        self.source = source
        self.events: list[Event] = []
        self.task = asyncio.create_task(self._run())
        self._new = asyncio.Event()

    async def _run(self) -> None:
        async for ev in self.source.events():
            self.events.append(ev)
            self._new.set()

    async def wait_for(self, n: int, timeout: float = 5.0) -> list[Event]:
        deadline = time.monotonic() + timeout
        while len(self.events) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"only {len(self.events)} of {n} events arrived: {self.events}")
            self._new.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new.wait(), left)
        return self.events

    async def close(self) -> None:
        await self.source.stop()
        await asyncio.wait_for(self.task, 5)


async def until(pred: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


class LoopLag:
    """Measures how late a 2 ms sleep wakes up while running: the event loop's longest freeze."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.002)
            self.lags.append(time.perf_counter() - t - 0.002)

    def __enter__(self) -> LoopLag:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()

    @property
    def worst(self) -> float:
        return max(self.lags, default=0.0)
