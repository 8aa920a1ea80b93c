"""Bilibili web danmaku connector: bootstrap (uid, buvid, real room id, WBI-signed getDanmuInfo) then the WS feed."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from danmaku.bilibili import wbi
from danmaku.bilibili.commands import WebNormalizer
from danmaku.bilibili.ws import BiliWsSource
from danmaku.config import BilibiliWebSource
from danmaku.net import client_session, request_json
from danmaku.source import SessionError

log = logging.getLogger("danmaku.bilibili")


@dataclass
class Bootstrap:
    real_room_id: int
    anchor_uid: int
    uid: int
    buvid: str
    token: str | None
    hosts: list[tuple[str, int, int]] = field(default_factory=list)  # (host, ws_port, wss_port)
    logged_in: bool = False
    wbi_rejected: bool = False


class BilibiliWebClient(BiliWsSource):
    platform = "bilibili"
    watches_live_room = True

    def __init__(self, cfg: BilibiliWebSource, room_id: str):
        super().__init__(cfg, room_id)
        self.cfg: BilibiliWebSource = cfg
        self.boot: Bootstrap | None = None
        self._wbi_keys: tuple[str, str, float] | None = None  # img, sub, fetched (monotonic)
        self._buvid: str | None = cfg.buvid
        self._nav: tuple[bool, int] | None = None  # (logged in, uid) from /nav
        self._host_index = 0
        self._failures = 0
        self.bootstraps = 0
        self._normalizer = WebNormalizer(room_id, self.errors.add, self._unknown, self._set_live)
        self._normalize = self._normalizer.feed

    # ------------------------------------------------------------ HTTP

    def _http_client(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = client_session(self.cfg.http_timeout_s, self.cfg.user_agent)
        return self._http

    def _cookie(self) -> str:
        parts = []
        if self.cfg.sessdata is not None:
            parts.append(f"SESSDATA={self.cfg.sessdata.get_secret_value()}")
        if self._buvid:
            parts.append(f"buvid3={self._buvid}")
        return "; ".join(parts)

    def _headers(self) -> dict[str, str]:
        h = {"User-Agent": self.cfg.user_agent}
        cookie = self._cookie()
        if cookie:
            h["Cookie"] = cookie
        return h

    async def _get(self, url: str, what: str, params: dict[str, Any] | None = None) -> Any:
        data, _ = await request_json(self._http_client(), "GET", url, ssl_arg=self._ssl, what=what, params=params,
                                     headers=self._headers())
        if not isinstance(data, dict):
            raise SessionError(f"{what}: unexpected response shape")
        return data

    async def _fetch_nav(self) -> None:
        """uid of the cookie and the WBI keys (the same call answers both, logged in or not)."""
        data = await self._get(f"{self.cfg.nav_base}/x/web-interface/nav", "nav")
        d = data.get("data") or {}
        if data.get("code") == 0 and d.get("isLogin"):
            self._nav = (True, int(d.get("mid") or 0))
        else:
            self._nav = (False, 0)
        img = (d.get("wbi_img") or {}).get("img_url")
        sub = (d.get("wbi_img") or {}).get("sub_url")
        if isinstance(img, str) and isinstance(sub, str):
            self._wbi_keys = (wbi.key_from_url(img), wbi.key_from_url(sub), time.monotonic())
        else:
            raise SessionError("nav: response has no wbi_img keys")

    async def _fetch_buvid(self) -> None:
        try:
            async with self._http_client().get(self.cfg.home_url, ssl=self._ssl, headers=self._headers()) as resp:
                morsel = resp.cookies.get("buvid3")
                if morsel is not None and morsel.value:
                    self._buvid = morsel.value
        except (aiohttp.ClientError, TimeoutError) as exc:
            log.info("%s/%s: could not get a buvid3 cookie: %s", self.room, self.name, exc)

    async def _bootstrap(self) -> Bootstrap:
        self.bootstraps += 1
        cfg = self.cfg
        keys_stale = self._wbi_keys is None or time.monotonic() - self._wbi_keys[2] > cfg.wbi_key_ttl_s
        if keys_stale or (cfg.sessdata is not None and self._nav is None):
            await self._fetch_nav()
        if self._buvid is None:
            await self._fetch_buvid()
        logged_in, nav_uid = self._nav or (False, 0)
        uid = cfg.uid if cfg.uid is not None else nav_uid
        if cfg.sessdata is not None and not logged_in:
            self._warn("the SESSDATA cookie was not accepted (expired?); continuing anonymously", until_recovery=False)

        info = await self._get(f"{cfg.api_base}/room/v1/Room/get_info", "get_info", {"room_id": cfg.room_id})
        if info.get("code") != 0 or not isinstance(info.get("data"), dict):
            raise SessionError(f"get_info: code {info.get('code')}: {info.get('message') or info.get('msg')}")
        d = info["data"]
        real_room = int(d.get("room_id") or cfg.room_id)
        anchor_uid = int(d.get("uid") or 0)
        if "live_status" in d:
            self._set_live(int(d["live_status"] or 0) == 1)

        assert self._wbi_keys is not None
        img, sub, _ = self._wbi_keys
        params = wbi.sign({"id": real_room, "type": 0, "web_location": "444.8"}, img, sub)
        boot = Bootstrap(real_room, anchor_uid, uid, self._buvid or "", None, logged_in=logged_in)
        try:
            conf = await self._get(f"{cfg.api_base}/xlive/web-room/v1/index/getDanmuInfo", "getDanmuInfo", params)
        except SessionError as exc:
            self._warn(f"{exc}; using the fallback host without a token")
            conf = {}
        code = conf.get("code")
        if code == 0 and isinstance(conf.get("data"), dict):
            cd = conf["data"]
            boot.token = cd.get("token") or None
            for h in cd.get("host_list") or []:
                if isinstance(h, dict) and isinstance(h.get("host"), str):
                    boot.hosts.append((h["host"], int(h.get("ws_port") or 2244), int(h.get("wss_port") or 443)))
        elif code is not None:
            if code == -352:
                boot.wbi_rejected = True
                self._wbi_keys = None  # refetch the keys next time
            self._warn(f"getDanmuInfo: code {code}: {conf.get('message')}; using the fallback host without a token")
        if not boot.hosts:
            boot.hosts.append((cfg.fallback_host, cfg.fallback_ws_port, cfg.fallback_wss_port))
        return boot

    # ------------------------------------------------------------ session

    async def _prepare(self) -> tuple[str, bytes, dict[str, str]]:
        if self.boot is None or self._failures >= max(3, len(self.boot.hosts)):
            self.boot = await self._bootstrap()
            self._failures = 0
            self._host_index = 0
        boot = self.boot
        host, ws_port, wss_port = boot.hosts[self._host_index % len(boot.hosts)]
        self._host_index += 1
        port = wss_port if self.cfg.scheme == "wss" else ws_port
        url = f"{self.cfg.scheme}://{host}:{port}/sub"
        auth: dict[str, Any] = {
            "uid": boot.uid,
            "roomid": boot.real_room_id,
            "protover": self.cfg.protover,
            "platform": "web",
            "type": 2,
        }
        if boot.token:
            auth["key"] = boot.token
        auth["buvid"] = boot.buvid
        return url, json.dumps(auth, separators=(",", ":")).encode(), self._headers()

    def _auth_ok(self) -> None:
        self._failures = 0

    def _on_auth_rejected(self, code: Any) -> None:
        # The token is stale or was signed for another UA/uid: bootstrap afresh on the next attempt.
        self.boot = None

    async def _before_reconnect(self, failures: int) -> None:
        self._failures += 1

    def _silence_cause(self) -> str:
        boot = self.boot
        if boot is not None and boot.wbi_rejected:
            return "the WBI signature was rejected (-352), so we connected without a token"
        # The heartbeat reply's popularity says whether anyone is watching: with (almost) nobody there, no
        # message at all is what a quiet room looks like, and blaming the login would send the operator astray.
        if self.popularity is None or self.popularity <= 1:
            return ("the room looks quiet (the server reports no audience), or it is off air; nothing seems "
                    "wrong with the connection")
        if self.cfg.sessdata is None:
            return ("the room has an audience but we saw no message; we are not logged in (no sessdata) and "
                    "Bilibili rate-limits anonymous connections and masks their names; set sessdata")
        if boot is not None and not boot.logged_in:
            return "the SESSDATA cookie has expired; renew sessdata"
        return "the account may be rate-limited, or the room's token/signature was rejected"

    async def _on_stop(self) -> None:
        await self._close_http()
