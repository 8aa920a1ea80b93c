"""A loopback Kuaishou live web: home page cookies, the room page's __INITIAL_STATE__, websocketinfo (optionally
signed) and the feed WebSocket speaking SocketMessage protobuf (enter room + ack, heartbeats, gzip feed pushes)."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web
from dm_fakes import FakeServer

from danmaku import pb

PRINCIPAL = "3xfakeroom"
STREAM_ID = "LSfake_0123456789"

Fields = list[tuple[int, Any]]


def ks_user(pid: str, name: str) -> Fields:
    return [(1, pid), (2, name), (3, f"https://p1.a.yximgs.com/uhead/{pid}.jpg")]


def comment(fid: str, user: Fields, text: str, wealth: int = 0, fans: int = 0) -> Fields:
    f: Fields = [(1, fid), (2, user), (3, text), (4, "XkLpfw=="), (7, 1)]
    if wealth or fans:
        f.append((8, [(4, fans), (7, wealth)]))
    return f


def like(fid: str, user: Fields) -> Fields:
    return [(1, fid), (2, user), (4, "XkLpfw==")]


def gift(fid: str, user: Fields, gift_id: int, merge_key: str, batch: int = 1, combo: int = 1) -> Fields:
    return [(1, fid), (2, user), (3, int(time.time() * 1000)), (4, gift_id), (6, merge_key), (7, batch), (8, combo),
            (10, 300000)]


def notice(fid: str, text: str) -> Fields:
    return [(1, fid), (3, int(time.time() * 1000)), (4, text), (5, 3000)]


def share(fid: str, user: Fields, to: int = 1) -> Fields:
    return [(1, fid), (2, user), (3, int(time.time() * 1000)), (4, to)]


def combo_comment(fid: str, text: str, count: int) -> Fields:
    return [(1, fid), (2, text), (3, count)]


def feed_push(*, comments: list[Fields] = (), likes: list[Fields] = (), gifts: list[Fields] = (),  # type: ignore[assignment]
              notices: list[Fields] = (), shares: list[Fields] = (), combos: list[Fields] = (),  # type: ignore[assignment]
              watching: str = "", like_count: str = "") -> bytes:
    f: Fields = []
    if watching:
        f.append((1, watching))
    if like_count:
        f.append((2, like_count))
    f += [(5, c) for c in comments] + [(7, c) for c in combos] + [(8, x) for x in likes] + [(9, g) for g in gifts]
    f += [(11, n) for n in notices] + [(12, s) for s in shares]
    return pb.encode(f)


def socket_message(payload_type: int, payload: bytes, compression: int = 1) -> bytes:
    return pb.encode([(1, payload_type), (2, compression), (3, payload)])


@dataclass
class KsConn:
    ws: web.WebSocketResponse
    enter: dict[int, Any] = field(default_factory=dict)
    heartbeats: list[tuple[float, int]] = field(default_factory=list)  # (when, client timestamp)


class KuaishouFake(FakeServer):
    def __init__(self) -> None:
        super().__init__()
        self.conns: list[KsConn] = []
        self.entered = asyncio.Event()
        self.heartbeat_ms = 200
        self.answer_enter = True
        self.require_signature = False
        self.tokens: list[str] = []
        self.revoked: set[str] = set()
        self.home_visits = 0
        self.info_calls: list[dict[str, str]] = []
        self.cookies_seen: list[str] = []
        self.sign_requests: list[dict[str, Any]] = []
        r = self.app.router
        r.add_get("/", self._home)
        r.add_get("/u/{pid}", self._room)
        r.add_get("/live_api/liveroom/websocketinfo", self._info)
        r.add_post("/sign", self._sign)
        r.add_get("/websocket", self._ws)

    async def _home(self, req: web.Request) -> web.Response:
        self.home_visits += 1
        resp = web.Response(text="<html>快手直播</html>", content_type="text/html")
        resp.set_cookie("did", "web_fake0123456789abcdef")
        resp.set_cookie("clientid", "3")
        return resp

    async def _room(self, req: web.Request) -> web.Response:
        cookie = req.headers.get("Cookie", "")
        self.cookies_seen.append(cookie)
        if "did=" not in cookie:
            return web.Response(text="<html><div id='captcha'>请完成验证 captcha</div></html>", content_type="text/html")
        if req.match_info["pid"] != PRINCIPAL:
            return web.Response(text="<html><script>window.__INITIAL_STATE__={\"liveroom\":{}};</script></html>",
                                content_type="text/html")
        state = ('{"liveroom":{"playList":[{"liveStream":{"id":"' + STREAM_ID + '","caption":"欢迎来到直播间",'
                 '"poster":"https://p2.a.yximgs.com/x.jpg"},"author":{"id":"' + PRINCIPAL + '","name":"主播"}}]}}')
        html = (f"<html><script>window.__INITIAL_STATE__={state};(function(){{var s;(s=document.currentScript||"
                "document.scripts[document.scripts.length-1]).parentNode.removeChild(s);}}());</script></html>")
        return web.Response(text=html, content_type="text/html")

    def expected_signature(self, url: str) -> str:
        return "SIG-" + hashlib.md5(url.encode()).hexdigest()[:8]

    async def _sign(self, req: web.Request) -> web.Response:
        body = await req.json()
        self.sign_requests.append(body)
        return web.json_response({"signature": "SIG-" + body["x_ms_stub"][:8]})

    async def _info(self, req: web.Request) -> web.Response:
        q = dict(req.query)
        self.info_calls.append(q)
        if "did=" not in req.headers.get("Cookie", "") or q.get("liveStreamId") != STREAM_ID:
            return web.json_response({"data": {"result": 2, "error_msg": "请登录"}})
        if self.require_signature:
            unsigned = f"{self.base}/live_api/liveroom/websocketinfo?liveStreamId={STREAM_ID}"
            if q.get("__NS_sig3") != self.expected_signature(unsigned):
                return web.json_response({"data": {"result": 400002, "error_msg": "sign invalid"}})
        token = f"TOKEN-{len(self.tokens) + 1}"
        self.tokens.append(token)
        return web.json_response({"data": {"result": 1, "token": token,
                                           "websocketUrls": [f"ws://127.0.0.1:{self.port}/websocket"]}})

    async def _ws(self, req: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(req)
        try:
            first = await asyncio.wait_for(ws.receive(), 5.0)
        except TimeoutError:
            await ws.close()
            return ws
        if first.type != WSMsgType.BINARY:
            await ws.close()
            return ws
        outer = pb.decode(first.data)
        body = pb.decode(pb.get_bytes(outer, 3))
        conn = KsConn(ws, {k: v[-1] for k, v in body.items()})
        token = pb.get_str(body, 1)
        if pb.get_int(outer, 1) != 200 or token not in self.tokens or token in self.revoked \
                or pb.get_str(body, 2) != STREAM_ID:
            await ws.send_bytes(socket_message(103, pb.encode([(1, 401), (2, "invalid token")])))
            await ws.close()
            return ws
        self.conns.append(conn)
        if self.answer_enter:
            await ws.send_bytes(socket_message(300, pb.encode([(1, 1000), (2, 10000), (3, self.heartbeat_ms)])))
        self.entered.set()
        async for m in ws:
            if m.type != WSMsgType.BINARY:
                continue
            f = pb.decode(m.data)
            if pb.get_int(f, 1) == 1:
                ts = pb.get_int(pb.decode(pb.get_bytes(f, 3)), 1)
                conn.heartbeats.append((time.monotonic(), ts))
                await ws.send_bytes(socket_message(101, pb.encode([(1, int(time.time() * 1000)), (2, ts)])))
        return ws

    async def push(self, payload: bytes, *, payload_type: int = 310, compress: bool = True) -> None:
        data = socket_message(payload_type, gzip.compress(payload), 2) if compress else \
            socket_message(payload_type, payload, 1)
        await self.conns[-1].ws.send_bytes(data)

    async def send_raw(self, data: bytes | str) -> None:
        ws = self.conns[-1].ws
        await (ws.send_str(data) if isinstance(data, str) else ws.send_bytes(data))

    async def wait_conns(self, n: int, timeout: float = 5.0) -> KsConn:
        deadline = time.monotonic() + timeout
        while len(self.conns) < n:
            if time.monotonic() > deadline:
                raise AssertionError(f"only {len(self.conns)} feed connections, wanted {n}")
            await asyncio.sleep(0.02)
        return self.conns[n - 1]
