"""Base for sources that are HTTP endpoints (webhook, Douyin push): serve an aiohttp app for the session's life."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

from danmaku.source import SessionError, Source


class HttpReceiver(Source):
    """Serves `_routes()` on cfg.host:cfg.port; `bound_port` and `ready` tell tests and operators where."""

    def __init__(self, cfg: Any, room_id: str):
        super().__init__(cfg, room_id)
        self.bound_port: int | None = None
        self.ready = asyncio.Event()

    def _routes(self, app: web.Application) -> None:
        raise NotImplementedError

    async def _serving(self) -> None:
        """Runs while the endpoint is up (e.g. platform task management); default: nothing."""
        await asyncio.Event().wait()

    async def _session(self) -> None:
        app = web.Application(client_max_size=self.cfg.max_body_bytes)
        self._routes(app)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.cfg.host, self.cfg.port)
            try:
                await site.start()
            except OSError as exc:
                raise SessionError(f"cannot listen on {self.cfg.host}:{self.cfg.port}: {exc}") from exc
            server = site._server
            sockets = getattr(server, "sockets", None) or []
            self.bound_port = sockets[0].getsockname()[1] if sockets else self.cfg.port
            self._endpoint = f"http://{self.cfg.host}:{self.bound_port}{self.cfg.path}"
            self._set_connected(True)
            self.ready.set()
            await self._serving()
        finally:
            self.ready.clear()
            await runner.cleanup()

    async def _read_json(self, request: web.Request) -> tuple[Any, bytes] | web.Response:
        try:
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            self.errors.add("too_large", f"body over {self.cfg.max_body_bytes} bytes")
            return web.json_response({"error": "body too large"}, status=413)
        try:
            return json.loads(body.decode("utf-8")), body
        except UnicodeDecodeError:
            self.errors.add("utf8", "request body")
            return web.json_response({"error": "body is not UTF-8"}, status=400)
        except (ValueError, RecursionError):
            self.errors.add("json", "request body")
            return web.json_response({"error": "body is not JSON"}, status=400)
