"""YouTube live chat connector: find the chat, poll liveChatMessages.list with page tokens, paced to the quota.

A session polls until something ends it. Waits the platform asks for happen inside the session, never as a hot
retry: quotaExceeded waits for the Pacific-midnight reset (reported in health and va_source_rate_limited),
rateLimitExceeded waits rate_limit_delay_s, doubling; an ended or missing chat is looked for again every
offline_recheck_s. Auth errors, 5xx and network trouble end the session (the base reconnects with backoff).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from typing import Any

import aiohttp

from danmaku import metrics
from danmaku.config import YouTubeSource
from danmaku.event import Event, EventKind
from danmaku.net import client_session, fetch, ssl_setting
from danmaku.source import DecodeError, SessionError, Source
from danmaku.youtube.messages import PLATFORM, YouTubeNormalizer, error_reason
from danmaku.youtube.quota import QuotaBudget, next_reset

log = logging.getLogger("danmaku.youtube")

LIST_COST = 5  # liveChatMessages.list
LOOKUP_COST = 1  # videos.list, liveBroadcasts.list
QUOTA_REASONS = frozenset({"quotaExceeded", "dailyLimitExceeded", "dailyLimitExceededUnreg"})
RATE_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded"})
GONE_REASONS = frozenset({"liveChatEnded", "liveChatNotFound"})
AUTH_REASONS = frozenset({"keyInvalid", "keyExpired", "authError", "forbidden", "insufficientPermissions",
                          "accessNotConfigured", "ipRefererBlocked"})
MAX_RATE_WAIT_S = 900.0
RESET_GRACE_S = 30.0  # after midnight Pacific, before the first call on the new day's quota


class ApiError(Exception):
    def __init__(self, status: int, reason: str, message: str, what: str):
        super().__init__(f"{what}: HTTP {status} {reason or ''}: {message[:200]}".replace("  ", " "))
        self.status, self.reason, self.message = status, reason, message


def _fmt_wait(seconds: float) -> str:
    seconds = max(0, math.ceil(seconds))
    h, m = divmod(seconds // 60, 60)
    return f"{h} h {m} min" if h else f"{m} min {seconds % 60} s" if m else f"{seconds} s"


class YouTubeLiveClient(Source):
    platform = PLATFORM
    watches_live_room = True

    def __init__(self, cfg: YouTubeSource, room_id: str):
        super().__init__(cfg, room_id)
        self.cfg: YouTubeSource = cfg
        self._ssl = ssl_setting(cfg)
        self._http: aiohttp.ClientSession | None = None
        self.budget = QuotaBudget(cfg.quota_per_day, cfg.stream_hours, cfg.quota_state_file)
        self._budget_loaded = False
        self.chat_id: str | None = cfg.live_chat_id
        self._page_token: str | None = None
        self._first_page = True
        self._access: tuple[str, float] | None = None  # OAuth access token, expiry (monotonic)
        self._rate_waits = 0
        self.polls = self.lookups = self.quota_waits = self.rate_limited = self.token_refreshes = 0
        self.intervals: list[float] = []  # the waits chosen after each poll (the last 100)
        self._normalizer = YouTubeNormalizer(room_id, self.errors.add, self._unknown, self._set_live)
        self._m_quota = metrics.SOURCE_QUOTA_LEFT.labels(room_id, self.name)
        # When the next quota day may begin (midnight Pacific and a grace); replaceable in tests.
        self._next_reset = lambda now: next_reset(now) + RESET_GRACE_S

    def _client(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = client_session(self.cfg.http_timeout_s)
        return self._http

    # ------------------------------------------------------------ HTTP and auth

    async def _send(self, method: str, url: str, what: str, **kw: Any) -> tuple[int, Any]:
        status, body = await fetch(self._client(), method, url, ssl_arg=self._ssl, what=what, **kw)
        try:
            return status, json.loads(body) if body else {}
        except (ValueError, UnicodeDecodeError):
            if status < 400:
                raise DecodeError("json", f"{what}: the answer is not JSON ({len(body)} bytes)") from None
            return status, {}

    async def _refresh(self) -> str:
        cfg = self.cfg
        assert cfg.refresh_token is not None and cfg.client_secret is not None
        status, data = await self._send("POST", cfg.token_url, "OAuth token refresh", data={
            "grant_type": "refresh_token", "refresh_token": cfg.refresh_token.get_secret_value(),
            "client_id": cfg.client_id, "client_secret": cfg.client_secret.get_secret_value()})
        if status in (400, 401):
            why = data.get("error_description") or data.get("error") if isinstance(data, dict) else ""
            self._warn(f"the OAuth refresh token is refused ({why}): authorize the app again", until_recovery=False)
            raise SessionError(f"OAuth token refresh refused: HTTP {status} {why}")
        token = data.get("access_token") if isinstance(data, dict) else None
        if status >= 400 or not isinstance(token, str):
            raise SessionError(f"OAuth token refresh: HTTP {status}, no access_token")
        expires = data.get("expires_in")
        life = float(expires) if isinstance(expires, (int, float)) and expires > 0 else 3600.0
        self._access = (token, time.monotonic() + life)
        self.token_refreshes += 1
        return token

    async def _auth(self) -> tuple[dict[str, str], dict[str, str]]:
        if self.cfg.refresh_token is None:
            assert self.cfg.api_key is not None
            return {"key": self.cfg.api_key.get_secret_value()}, {}
        if self._access is None or time.monotonic() > self._access[1] - 60:
            await self._refresh()
        assert self._access is not None
        return {}, {"Authorization": f"Bearer {self._access[0]}"}

    async def _api(self, path: str, params: dict[str, str], cost: int, what: str) -> dict[str, Any]:
        """One API call, its units counted before it is sent; ApiError for an error answer."""
        for attempt in (0, 1):
            query, headers = await self._auth()
            self.budget.spend(cost, time.time())
            await asyncio.to_thread(self.budget.save)
            self._m_quota.set(self.budget.left(time.time()))
            status, data = await self._send("GET", self.cfg.api_base + path, what, params={**params, **query},
                                            headers=headers)
            if status == 401 and self.cfg.refresh_token is not None and attempt == 0:
                self._access = None  # expired early or revoked: one refresh, then the call again
                continue
            if status >= 400:
                reason, message = error_reason(data)
                raise ApiError(status, reason, message, what)
            if not isinstance(data, dict):
                raise DecodeError("shape", f"{what}: the answer is not an object")
            return data
        raise AssertionError("unreachable")

    # ------------------------------------------------------------ the session

    async def _session(self) -> None:
        if not self._budget_loaded:
            await asyncio.to_thread(self.budget.load)
            self._budget_loaded = True
        while True:
            try:
                if self.chat_id is None:
                    self.chat_id = await self._find_chat()
                    if self.chat_id is None:
                        await self._offline(f"no active live chat for {self._which()}")
                        continue
                await self._poll()
            except ApiError as exc:
                await self._api_error(exc)
            except DecodeError as exc:
                self.errors.add(exc.kind, exc.detail)  # one bad answer: counted, and the next poll comes
                await asyncio.sleep(max(1.0, self.cfg.reconnect_delay_s))

    def _which(self) -> str:
        if self.cfg.video_id is not None:
            return f"video {self.cfg.video_id}"
        return "the channel's active broadcast" if self.cfg.mine else f"chat {self.cfg.live_chat_id}"

    async def _find_chat(self) -> str | None:
        self.lookups += 1
        if self.cfg.video_id is not None:
            data = await self._api("/videos", {"part": "liveStreamingDetails", "id": self.cfg.video_id},
                                   LOOKUP_COST, "videos.list")
            items = data.get("items")
            if not isinstance(items, list) or not items:
                raise ApiError(404, "videoNotFound", f"video {self.cfg.video_id} not found", "videos.list")
            details = items[0].get("liveStreamingDetails") if isinstance(items[0], dict) else None
            chat = details.get("activeLiveChatId") if isinstance(details, dict) else None
        else:
            data = await self._api("/liveBroadcasts", {"part": "snippet", "broadcastStatus": "active",
                                                       "broadcastType": "all"}, LOOKUP_COST, "liveBroadcasts.list")
            items = data.get("items") if isinstance(data.get("items"), list) else []
            chat = None
            for b in items:
                snippet = b.get("snippet") if isinstance(b, dict) else None
                if isinstance(snippet, dict) and isinstance(snippet.get("liveChatId"), str):
                    chat = snippet["liveChatId"]
                    break
        if not isinstance(chat, str) or not chat:
            return None
        self._page_token, self._first_page = None, True
        self._set_live(True)
        return chat

    async def _poll(self) -> None:
        assert self.chat_id is not None
        while True:
            now = time.time()
            if not self.budget.can_spend(LIST_COST, now):
                await self._quota_wait(f"{self.budget.spent} of {self.budget.per_day} units spent today")
                continue
            params = {"liveChatId": self.chat_id, "part": "snippet,authorDetails",
                      "maxResults": str(self.cfg.max_results)}
            if self._page_token:
                params["pageToken"] = self._page_token
            data = await self._api("/liveChat/messages", params, LIST_COST, "liveChatMessages.list")
            self.polls += 1
            self._rate_waits = 0
            self.budget.tick(time.time())
            self._set_connected(True)
            since = time.time() - self.cfg.history_s if self._first_page else None
            self._first_page = False
            out: list[Event] = []
            if self._normalizer.feed(data.get("items", []), out, since):
                self._touch()
            for ev in out:
                self._emit(ev)
            token = data.get("nextPageToken")
            if isinstance(token, str) and token:
                self._page_token = token
            if data.get("offlineAt") or self._live is False:
                ended = any(ev.extra.get("type") == "ended" for ev in out)  # a chatEndedEvent said it already
                await self._chat_gone("the live chat is over (offlineAt)", announce=not ended)
                return
            server = data.get("pollingIntervalMillis")
            server_s = server / 1000 if isinstance(server, (int, float)) and 0 <= server <= 600_000 else 5.0
            wait = self.budget.interval(LIST_COST, server_s, time.time())
            self.intervals = [*self.intervals[-99:], wait]
            await asyncio.sleep(wait)

    # ------------------------------------------------------------ what the API asks of us

    async def _api_error(self, exc: ApiError) -> None:
        reason = exc.reason
        if reason in QUOTA_REASONS:
            metrics.SOURCE_RATE_LIMITED.labels(self.room, self.name, reason).inc()
            self.budget.exhaust(time.time())
            await asyncio.to_thread(self.budget.save)
            await self._quota_wait(f"the API answered {reason}")
        elif reason in RATE_REASONS or exc.status == 429:
            self.rate_limited += 1
            metrics.SOURCE_RATE_LIMITED.labels(self.room, self.name, reason or "429").inc()
            wait = min(MAX_RATE_WAIT_S, self.cfg.rate_limit_delay_s * 2 ** min(self._rate_waits, 10))
            self._rate_waits += 1
            self._warn(f"YouTube rate-limits this client ({reason or 'HTTP 429'}); next poll in {_fmt_wait(wait)}")
            await asyncio.sleep(wait)
        elif reason in GONE_REASONS or reason in ("videoNotFound", "liveChatDisabled"):
            await self._chat_gone(f"{self._which()}: {reason} ({exc.message[:120]})", announce=reason != "videoNotFound")
        elif reason in AUTH_REASONS or exc.status in (401, 403):
            self._warn(f"YouTube refuses the credentials ({reason or exc.status}: {exc.message[:120]}); check the "
                       "API key or OAuth client", until_recovery=False)
            raise SessionError(str(exc))
        else:
            raise SessionError(str(exc))  # 5xx, backendError, a bad request: the base backs off

    async def _quota_wait(self, why: str) -> None:
        now = time.time()
        until = self._next_reset(now) - now
        self.quota_waits += 1
        self._m_quota.set(0)
        self.budget.pause()
        self._set_connected(False)
        self._warn(f"YouTube quota exhausted ({why}): no polls until the daily reset at midnight Pacific, "
                   f"in {_fmt_wait(until)} (raise quota_per_day only if the project's quota is larger)")
        await asyncio.sleep(max(0.0, until))
        self.budget.new_day(time.time())

    async def _chat_gone(self, why: str, *, announce: bool) -> None:
        if announce:
            self._emit(Event(PLATFORM, self.room, EventKind.SYSTEM, None, "", 0, "", {"type": "ended", "why": why}))
        self._set_live(False)
        self._set_connected(False)
        self.budget.pause()
        if self.cfg.live_chat_id is None:
            self.chat_id = None  # a video's or channel's next chat may have another id
        self._page_token, self._first_page = None, True
        await self._offline(why)

    async def _offline(self, why: str) -> None:
        self._set_connected(False)
        self._warn(f"{why}; looking again in {_fmt_wait(self.cfg.offline_recheck_s)}")
        await asyncio.sleep(self.cfg.offline_recheck_s)

    async def _before_reconnect(self, failures: int) -> None:
        if self.cfg.mine:
            self.chat_id = None  # silent or failing: the channel may be live on another broadcast now

    def _silence_cause(self) -> str:
        return "the chat is quiet, or the broadcast moved to another chat id"

    async def _on_stop(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self.budget.save)
        if self._http is not None:
            await self._http.close()
            self._http = None
