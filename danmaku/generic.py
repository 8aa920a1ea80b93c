"""Platform-neutral sources: HTTP webhook, Redis Stream consumer group, and JSONL replay."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import json
import logging
import os
import secrets
import socket
import time
from typing import Any

from aiohttp import web

from danmaku.config import RedisStreamSource, ReplaySource, WebhookSource
from danmaku.event import Event
from danmaku.receiver import HttpReceiver
from danmaku.source import SessionError, Source

log = logging.getLogger("danmaku.generic")


def event_from_obj(obj: Any, room: str) -> Event:
    """Event.from_json, with the daemon's room id (a source feeds one room whatever the sender says)."""
    return Event.from_json(obj, room=room)


class WebhookReceiver(HttpReceiver):
    """POST cfg.path with `Authorization: Bearer <token>` (or `X-Token`) and one Event object or a list."""

    def __init__(self, cfg: WebhookSource, room_id: str):
        super().__init__(cfg, room_id)
        self.cfg: WebhookSource = cfg

    def _routes(self, app: web.Application) -> None:
        app.router.add_post(self.cfg.path, self._handle)

    def _authorized(self, request: web.Request) -> bool:
        token = self.cfg.token.get_secret_value().encode()
        auth = request.headers.get("Authorization", "")
        given = auth[7:] if auth.startswith("Bearer ") else request.headers.get("X-Token", "")
        return hmac.compare_digest(given.encode(), token)

    async def _handle(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            self.errors.add("auth", f"from {request.remote}")
            return web.json_response({"error": "bad or missing token"}, status=401)
        parsed = await self._read_json(request)
        if isinstance(parsed, web.Response):
            return parsed
        obj, _ = parsed
        items = obj if isinstance(obj, list) else [obj]
        events = []
        for i, item in enumerate(items):
            try:
                events.append(event_from_obj(item, self.room))
            except (ValueError, TypeError, OverflowError) as exc:
                self.errors.add("shape", str(exc))
                return web.json_response({"error": f"item {i}: {exc}"}, status=400)
        self._touch()
        for ev in events:
            self._emit(ev)
        return web.json_response({"accepted": len(events)})


class RedisStreamConsumer(Source):
    """XREADGROUP from a stream (group created if missing), XACK after each entry is handed on."""

    def __init__(self, cfg: RedisStreamSource, room_id: str):
        super().__init__(cfg, room_id)
        self.cfg: RedisStreamSource = cfg
        self.consumer = cfg.consumer or f"{socket.gethostname()}-{os.getpid()}"
        self.acked = 0

    async def _session(self) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff
        from redis.exceptions import RedisError, ResponseError

        cfg = self.cfg
        # Our loop owns retries (backoff, health); a socket timeout bounds every read, blocking ones included.
        client = aioredis.from_url(
            cfg.url.get_secret_value(), socket_timeout=cfg.block_ms / 1000 + 5, socket_connect_timeout=5,
            retry=Retry(NoBackoff(), 0),
        )
        field = cfg.field.encode()
        try:
            try:
                await self._call(client.xgroup_create(cfg.stream, cfg.group, id="$", mkstream=True))
            except ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise
            self._set_connected(True)
            # First our own pending entries (delivered before a crash, never acked), then new ones.
            cursor = "0"
            while True:
                block = cfg.block_ms if cursor == ">" else None
                resp = await self._call(client.xreadgroup(cfg.group, self.consumer, {cfg.stream: cursor},
                                                          count=cfg.batch, block=block))
                entries = resp[0][1] if resp else []
                if cursor == "0" and not entries:
                    cursor = ">"
                    continue
                if not entries:
                    continue
                self._touch()
                ids = []
                for entry_id, fields in entries:
                    ids.append(entry_id)
                    if fields is None:
                        continue  # deleted while pending
                    raw = fields.get(field)
                    if raw is None:
                        self.errors.add("shape", f"entry {entry_id!r} has no field {cfg.field!r}")
                        continue
                    try:
                        await self._emit_wait(event_from_obj(json.loads(raw), self.room))
                    except UnicodeDecodeError as exc:
                        self.errors.add("utf8", str(exc))
                    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
                        self.errors.add("json" if isinstance(exc, json.JSONDecodeError) else "shape", str(exc))
                # Malformed entries are acked too: a poison message must not come back forever.
                await self._call(client.xack(cfg.stream, cfg.group, *ids))
                self.acked += len(ids)
        except RedisError as exc:
            raise SessionError(f"redis: {type(exc).__name__}: {exc}") from exc
        finally:
            await client.aclose()

    async def _call(self, coro: Any) -> Any:
        """Runs one redis command shielded from cancellation: redis-py can swallow a cancel that lands inside a
        blocking read and then wait forever. On cancel we let the command finish (a read ends within block_ms)."""
        task = asyncio.ensure_future(coro)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, self.cfg.block_ms / 1000 + 2)
            raise

    def _silence_cause(self) -> str:
        return "the upstream crawler stopped writing to the stream"


class ReplayPlayer(Source):
    """Plays a JSONL file of Events with their original timing ("t" offsets, else received_wall gaps) / speed.

    Looping, every pass is new chat as far as anyone downstream can tell: each event gets a message id unique
    to this run and pass (`<id>~<run>.<pass>`), and arrival times of now, so consumers that rightly drop
    repeated ids (the director, a Redis dedup window shared across restarts) answer every pass, for hours."""

    def __init__(self, cfg: ReplaySource, room_id: str):
        super().__init__(cfg, room_id)
        self.cfg: ReplaySource = cfg
        self.plays = 0
        self._run_id = secrets.token_hex(4)

    async def _session(self) -> None:
        path = self.cfg.path.expanduser()
        try:
            data = await asyncio.to_thread(path.read_bytes)
        except OSError as exc:
            raise SessionError(f"cannot read {path}: {exc}") from exc
        self._set_connected(True)
        lines = data.splitlines()
        while True:
            await self._play(lines)
            self.plays += 1
            if not self.cfg.loop:
                # The recording is over: end the stream instead of reconnecting.
                self._stopping = True
                return

    async def _play(self, lines: list[bytes]) -> None:
        speed = self.cfg.speed
        start = time.monotonic()
        t0: float | None = None
        fresh_ids = self.cfg.loop
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise ValueError("line is not a JSON object")
                t = obj.get("t")
                if t is None and isinstance(obj.get("received_wall"), (int, float)):
                    t = obj["received_wall"]
                    t0 = t if t0 is None else t0
                    offset = float(t) - t0
                else:
                    offset = float(t or 0.0)
                ev = event_from_obj(obj, self.room)
            except UnicodeDecodeError:
                self.errors.add("utf8", f"line {n}")
                continue
            except (ValueError, TypeError, OverflowError, RecursionError) as exc:
                self.errors.add("shape", f"line {n}: {exc}")
                continue
            if speed > 0:
                delay = start + offset / speed - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            else:
                await asyncio.sleep(0)  # let the consumer run between lines
            self._touch()
            # Arrival is now, not when the line was parsed (before the wait): latency is measured from here.
            if fresh_ids:
                ev = dataclasses.replace(ev, msg_id=f"{ev.msg_id or f'line{n}'}~{self._run_id}.{self.plays}",
                                         received_mono=time.monotonic(), received_wall=time.time())
            else:
                ev = dataclasses.replace(ev, received_mono=time.monotonic(), received_wall=time.time())
            await self._emit_wait(ev)
