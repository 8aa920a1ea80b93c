"""The admin HTTP API (aiohttp): health, readiness, metrics, room control, reload and the operator console."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import inspect
import ipaddress
import json
import logging
import os
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger
from prometheus_client import generate_latest

from broadcaster import metrics
from broadcaster.config import AdminConfig
from broadcaster.logs import redact, redact_obj, register_secrets, secrets_of
from broadcaster.watchdog import check_rooms, update_process_metrics
from broadcaster.worker import RemoteError
from common.bounded import BoundedDict

log = logging.getLogger(__name__)

# The classic text format generate_latest() writes; stated explicitly because newer prometheus_client
# versions advertise 1.0.0, which Prometheus 2.x servers do not know.
METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
MAX_BODY_BYTES = 16 * 1024  # the API takes short JSON bodies only; anything bigger is refused unread
MAX_SAY_CHARS = 500
TOKEN_FILE = "admin.token"
CONSOLE_DIR = Path(__file__).with_name("console")


class _Room(Protocol):
    """A room as the API sees it: a Room in the daemon (inline) or the handle of its worker process. status and
    clock_age answer at once; the others may return awaitables (a worker answers over its socket)."""

    id: str

    def status(self) -> dict[str, Any]: ...
    def say(self, text: str) -> dict[str, Any] | Awaitable[dict[str, Any]]: ...
    def skip(self) -> Any: ...
    def product(self, action: str, args: dict[str, Any]) -> dict[str, Any] | Awaitable[dict[str, Any]]: ...
    def pause(self) -> Any: ...
    def resume(self) -> Any: ...
    def snapshot_jpeg(self) -> bytes | Awaitable[bytes | None] | None: ...
    def clock_age(self) -> float: ...
    def recent_chat(self) -> list[dict[str, Any]] | Awaitable[list[dict[str, Any]]]: ...


class _Daemon(Protocol):
    rooms: Mapping[str, _Room]
    config: Any

    async def reload(self) -> dict[str, Any]: ...
    async def plan(self) -> dict[str, Any]: ...


DAEMON: web.AppKey[_Daemon] = web.AppKey("daemon", object)  # type: ignore[arg-type]
TOKEN: web.AppKey[bytes] = web.AppKey("token", bytes)
SETTINGS: web.AppKey[AdminSettings] = web.AppKey("settings", object)  # type: ignore[arg-type]
STRIKES: web.AppKey[Strikes] = web.AppKey("strikes", object)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class AdminSettings:
    metrics_public: bool
    stall_after_s: float
    console_html: bytes
    console_csp: str


# ---------------------------------------------------------------------------------------------- token


@dataclass(slots=True)
class _Record:
    failures: int = 0
    window_start: float = 0.0
    locked_until: float = 0.0
    lockouts: int = 0


class Strikes:
    """Failed token attempts per client address. Past `allowed` failures within `window_s`, the address is
    refused (429, token not even compared) for 1 s, then 2, 4, … up to `max_s` with every further failure:
    guessing a 32-byte token stays hopeless, and one noisy address cannot lock out the others."""

    def __init__(self, allowed: int, window_s: float, max_s: float, *, clock: Callable[[], float] | None = None,
                 max_addresses: int = 4096):
        self.allowed, self.window_s, self.max_s = allowed, window_s, max_s
        self._now = clock or time.monotonic
        self._by_address: BoundedDict[str, _Record] = BoundedDict(max_addresses)

    def locked_for(self, address: str) -> float:
        """Seconds this address must still wait (0 when it may try)."""
        rec = self._by_address.get(address)
        if rec is None:
            return 0.0
        return max(0.0, rec.locked_until - self._now())

    def failed(self, address: str) -> None:
        now = self._now()
        rec = self._by_address.get(address)
        if rec is None or (now - rec.window_start > self.window_s and now >= rec.locked_until):
            rec = _Record(window_start=now)
        rec.failures += 1
        if rec.failures > self.allowed:
            rec.locked_until = now + min(self.max_s, 2.0 ** rec.lockouts)
            rec.lockouts += 1
        self._by_address[address] = rec


def resolve_token(cfg: AdminConfig, state_dir: Path | None) -> tuple[str, Path | None]:
    """The configured token, or a random one written to <state_dir>/admin.token (0600) for the CLI to read.

    A daemon without a configured token is still locked: nobody gets in without reading that file.
    """
    if cfg.token is not None and cfg.token.get_secret_value():
        return cfg.token.get_secret_value(), None
    token = secrets.token_urlsafe(32)
    if state_dir is None:
        return token, None
    path = Path(state_dir) / TOKEN_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(token + "\n")
        os.chmod(path, 0o600)
    except OSError as exc:
        log.warning("admin token could not be written to %s (%s); set daemon.admin.token to use the API", path, exc)
        return token, None
    return token, path


def _authorized(request: web.Request) -> bool:
    header = request.headers.get("Authorization", "")
    scheme, _, given = header.partition(" ")
    expected = request.app[TOKEN]
    # Compare even when the scheme is wrong so timing says nothing about which part failed.
    ok = hmac.compare_digest(given.strip().encode("utf-8", "surrogateescape"), expected)
    return ok and scheme.lower() == "bearer"


def _public(request: web.Request) -> bool:
    path = request.path
    if path in ("/healthz", "/readyz", "/", "/favicon.ico"):
        return request.method in ("GET", "HEAD")
    if path == "/metrics":
        return request.app[SETTINGS].metrics_public and request.method in ("GET", "HEAD")
    return False


# ------------------------------------------------------------------------------------------ middleware


def _error(status: int, message: str, **headers: str) -> web.Response:
    return web.json_response({"error": message}, status=status, headers=headers or None)


@web.middleware
async def _guard(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    if not _public(request):
        strikes, address = request.app[STRIKES], request.remote or ""
        wait = strikes.locked_for(address)
        if wait > 0:
            return _error(429, "too many failed tokens from this address; try again later",
                          **{"Retry-After": str(max(1, round(wait)))})
        if not _authorized(request):
            strikes.failed(address)
            log.warning("admin: wrong or missing token from %s for %s %s", address, request.method, request.path)
            return _error(401, "missing or wrong bearer token", **{"WWW-Authenticate": 'Bearer realm="virtual-anchor"'})
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        return _error(413, f"request body over {MAX_BODY_BYTES} bytes")
    try:
        response = await handler(request)
    except web.HTTPRequestEntityTooLarge:
        return _error(413, f"request body over {MAX_BODY_BYTES} bytes")
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return _error(exc.status, exc.reason)
    except RemoteError as exc:  # the room's worker is restarting or did not answer in time
        return _error(503, redact(f"the room's worker could not answer: {exc}"), **{"Retry-After": "2"})
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("admin %s %s failed", request.method, request.path)
        return _error(500, "internal error (see the daemon log)")
    _secure_headers(response, request)
    return response


def _secure_headers(response: web.StreamResponse, request: web.Request) -> None:
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Cache-Control", "no-store")
    if request.path == "/":
        response.headers["Content-Security-Policy"] = request.app[SETTINGS].console_csp


class _AccessLogger(AbstractAccessLogger):
    """Control actions at info; the console's polling (status, snapshots, metrics) at debug only."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        level = logging.INFO if request.method not in ("GET", "HEAD") or response.status >= 400 else logging.DEBUG
        if not self.logger.isEnabledFor(level):
            return
        self.logger.log(
            level,
            "%s %s %s %.1fms",
            request.method,
            request.path,
            response.status,
            time * 1000,
            extra={"remote": request.remote or "", "status": response.status},
        )


# -------------------------------------------------------------------------------------------- helpers


def _json(data: Any, status: int = 200) -> web.Response:
    body = json.dumps(redact_obj(data), ensure_ascii=False, default=str)
    return web.Response(text=body, status=status, content_type="application/json")


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _room(request: web.Request) -> _Room:
    room = request.app[DAEMON].rooms.get(request.match_info["room"])
    if room is None:
        raise web.HTTPNotFound(reason="no such room")
    return room


def _room_status(room_id: str, room: _Room) -> dict[str, Any]:
    status = dict(room.status())
    status["id"] = room_id
    status.setdefault("worker", {"mode": "inline", "pid": os.getpid(), "restarts": 0, "rss_bytes": None})
    # The talk track's figures (director/talk.py snapshot: variety, repeats, paraphrases, thin material), null
    # for a room without one: the console's Talk track panel.
    status.setdefault("talk", (status.get("director") or {}).get("talk"))
    try:
        status["clock_age_s"] = round(float(room.clock_age()), 3)
    except Exception:
        status["clock_age_s"] = None
    return status


async def _body(request: web.Request) -> dict[str, Any]:
    if not request.can_read_body:
        return {}
    raw = await request.read()  # bounded by client_max_size as well as the Content-Length check
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, ValueError):  # JSONDecodeError, and ints past Python's digit limit
        raise web.HTTPBadRequest(reason="body is not valid JSON") from None
    except RecursionError:  # deeply nested arrays: nothing this API takes nests more than a level
        raise web.HTTPBadRequest(reason="body is nested too deeply") from None
    if not isinstance(data, dict):
        raise web.HTTPBadRequest(reason="body must be a JSON object")
    if not _encodable(data):  # "\ud800" parses, but is no text anyone can say, log or answer with; no route
        # takes more than two levels, so deeper nesting is refused before anything recurses over it
        raise web.HTTPBadRequest(reason="body nests too deeply or holds a lone surrogate (not text)")
    return data


def _encodable(value: Any, depth: int = 0) -> bool:
    if depth > 32:
        return False
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_encodable(k, depth + 1) and _encodable(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_encodable(v, depth + 1) for v in value)
    return True


# ----------------------------------------------------------------------------------------------- routes


async def healthz(request: web.Request) -> web.Response:
    # Liveness: answering at all means the event loop turns. The media clocks are readiness's business.
    return _json({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    rooms = request.app[DAEMON].rooms
    health = check_rooms(rooms, request.app[SETTINGS].stall_after_s)
    body: dict[str, Any] = {"ready": health.healthy, "status": health.describe()}
    if failing := _failing_sinks(rooms):  # shown, not judged: a room whose recording fails is still on air
        body["sinks_failing"] = failing
    return _json(body, status=200 if health.healthy else 503)


def _failing_sinks(rooms: Any) -> list[str]:
    """`room/sink: reason` for every sink that reports a fault (a recording's full disk, deleted folder…)."""
    out = []
    for rid, room in list(rooms.items()):
        try:
            sinks = room.status().get("sinks") or []
        except Exception:  # check_rooms has logged it; readiness already says the room is stalled
            continue
        out += [f"{rid}/{s.get('name')}: {s['fault']}" for s in sinks if isinstance(s, dict) and s.get("fault")]
    return out


async def metrics_view(request: web.Request) -> web.Response:
    daemon = request.app[DAEMON]
    scrape = getattr(daemon, "scrape", None)  # with room workers: the daemon merges every worker's series
    if scrape is not None:
        body = await scrape()
    else:
        update_process_metrics(daemon.rooms)
        body = generate_latest(metrics.REGISTRY)
    return web.Response(body=body, headers={"Content-Type": METRICS_CONTENT_TYPE})


async def rooms_view(request: web.Request) -> web.Response:
    rooms = request.app[DAEMON].rooms
    return _json({"rooms": [_room_status(rid, room) for rid, room in list(rooms.items())]})


async def room_view(request: web.Request) -> web.Response:
    room = _room(request)
    status = _room_status(request.match_info["room"], room)
    status["chat"] = list(await _maybe_await(room.recent_chat()))
    return _json(status)


async def chat_view(request: web.Request) -> web.Response:
    return _json({"chat": list(await _maybe_await(_room(request).recent_chat()))})


async def say_view(request: web.Request) -> web.Response:
    room = _room(request)
    data = await _body(request)
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise web.HTTPBadRequest(reason="'text' must be a non-empty string")
    text = text.strip()
    if len(text) > MAX_SAY_CHARS:
        raise web.HTTPBadRequest(reason=f"'text' is over {MAX_SAY_CHARS} characters")
    try:
        queued = await _maybe_await(room.say(text))
    except ValueError as exc:
        raise web.HTTPConflict(reason=redact(str(exc))) from None
    log.info("operator line queued for %s", request.match_info["room"], extra={"room": request.match_info["room"]})
    return _json({"queued": queued})


def _action(name: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def view(request: web.Request) -> web.Response:
        room = _room(request)
        await _body(request)  # drains (and size-checks) a body if one was sent
        result = await _maybe_await(getattr(room, name)())
        log.info("operator %s on %s", name, request.match_info["room"], extra={"room": request.match_info["room"]})
        return _json({"ok": True, "action": name, "result": result})

    view.__name__ = f"{name}_view"
    return view


async def _product(request: web.Request, action: str, args: dict[str, Any]) -> web.Response:
    room = _room(request)
    try:
        result = await _maybe_await(room.product(action, args))
    except ValueError as exc:  # no products, an unknown product or offer, a bad value: said to the operator
        raise web.HTTPConflict(reason=redact(str(exc))) from None
    if action != "view":
        log.info("operator product %s on %s", action, request.match_info["room"],
                 extra={"room": request.match_info["room"]})
    return _json(result)


async def products_view(request: web.Request) -> web.Response:
    """The products: the one on screen, the running order, each one's price, stock and offers (with time left)."""
    return await _product(request, "view", {})


async def present_view(request: web.Request) -> web.Response:
    """{"product": id}: presented from the next line boundary; {"product": "next"} or POST …/products/next: the next
    product in stock."""
    data = await _body(request)
    product = request.match_info.get("product") or data.get("product")
    if not isinstance(product, str) or not product.strip():
        raise web.HTTPBadRequest(reason="'product' must be a product id (or \"next\")")
    if product == "next":
        return await _product(request, "next", {})
    return await _product(request, "present", {"product": product.strip()})


async def next_product_view(request: web.Request) -> web.Response:
    await _body(request)
    return await _product(request, "next", {})


def _offer_action(action: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def view(request: web.Request) -> web.Response:
        await _body(request)
        return await _product(request, action, {"product": request.match_info["product"],
                                                "offer": request.match_info["offer"]})

    view.__name__ = f"{action}_view"
    return view


async def stock_view(request: web.Request) -> web.Response:
    """{"stock": n} (a whole number ≥ 0; 0 stops the product's pitch) or {"stock": null} (not shown)."""
    data = await _body(request)
    if "stock" not in data:
        raise web.HTTPBadRequest(reason="'stock' is missing (a whole number ≥ 0, or null)")
    stock = data["stock"]
    if stock is not None and (isinstance(stock, bool) or not isinstance(stock, int) or stock < 0):
        raise web.HTTPBadRequest(reason="'stock' must be a whole number ≥ 0, or null")
    return await _product(request, "stock", {"product": request.match_info["product"], "stock": stock})


async def snapshot_view(request: web.Request) -> web.Response:
    room = _room(request)
    if inspect.iscoroutinefunction(room.snapshot_jpeg):  # a worker encodes it in its own process
        jpeg = await room.snapshot_jpeg()
    else:  # a thread: an inline room JPEG-encodes on demand, which must not stall the loop serving other rooms
        jpeg = await asyncio.to_thread(room.snapshot_jpeg)
    if not jpeg:
        raise web.HTTPServiceUnavailable(reason="no frame rendered yet")
    return web.Response(body=jpeg, content_type="image/jpeg")


async def reload_view(request: web.Request) -> web.Response:
    """{"dry_run": true}: what would apply live and what would cut, per room; otherwise the reload's result,
    with "ok": false and "failed" (room → why) when a room kept its old config."""
    daemon = request.app[DAEMON]
    data = await _body(request)
    dry_run = data.get("dry_run", False)
    if not isinstance(dry_run, bool):
        raise web.HTTPBadRequest(reason="'dry_run' must be true or false")
    try:
        result = await (daemon.plan() if dry_run else daemon.reload())
    except Exception as exc:  # a bad config file: say why, keep running the old one
        log.error("reload refused: %s", exc)
        return _json({"error": f"reload refused, the running config stays: {exc}"}, status=400)
    register_secrets(secrets_of(daemon.config))  # also what the daemon itself registered on loading
    if not dry_run:
        result = {**result, "ok": not result.get("failed")}
    return _json(result)


async def console_view(request: web.Request) -> web.Response:
    return web.Response(body=request.app[SETTINGS].console_html, content_type="text/html", charset="utf-8")


# ------------------------------------------------------------------------------------------------- app


def _console() -> tuple[bytes, str]:
    """The console page and a CSP that allows exactly its own inline script and style (by hash)."""
    html = (CONSOLE_DIR / "index.html").read_text(encoding="utf-8")

    def hashes(tag: str) -> str:
        found = re.findall(rf"<{tag}>(.*?)</{tag}>", html, re.S)
        return " ".join(
            "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'" for s in found
        )

    csp = (
        f"default-src 'none'; script-src {hashes('script')}; style-src {hashes('style')}; "
        "img-src 'self' blob: data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )
    return html.encode("utf-8"), csp


def create_app(daemon: _Daemon, cfg: AdminConfig, *, token: str | None = None, stall_after_s: float = 5.0) -> web.Application:
    """The admin application. `token` overrides cfg.token (start_admin passes the resolved one)."""
    if token is None:
        state_dir = getattr(getattr(getattr(daemon, "config", None), "daemon", None), "state_dir", None)
        token, _ = resolve_token(cfg, state_dir)
    register_secrets([token, *secrets_of(getattr(daemon, "config", None))])
    html, csp = _console()
    app = web.Application(middlewares=[_guard], client_max_size=MAX_BODY_BYTES)
    app[DAEMON] = daemon
    app[TOKEN] = token.encode("utf-8")
    app[SETTINGS] = AdminSettings(cfg.metrics_public, stall_after_s, html, csp)
    app[STRIKES] = Strikes(cfg.failed_tokens, cfg.failed_token_window_s, cfg.lockout_max_s)
    r = app.router
    r.add_get("/", console_view)
    r.add_get("/healthz", healthz)
    r.add_get("/readyz", readyz)
    r.add_get("/metrics", metrics_view)
    r.add_get("/api/rooms", rooms_view)
    r.add_get("/api/rooms/{room}", room_view)
    r.add_get("/api/rooms/{room}/chat", chat_view)
    r.add_get("/api/rooms/{room}/snapshot.jpg", snapshot_view)
    r.add_post("/api/rooms/{room}/say", say_view)
    for action in ("skip", "pause", "resume"):
        r.add_post(f"/api/rooms/{{room}}/{action}", _action(action))
    r.add_get("/api/rooms/{room}/products", products_view)
    r.add_post("/api/rooms/{room}/products/present", present_view)
    r.add_post("/api/rooms/{room}/products/next", next_product_view)
    r.add_post("/api/rooms/{room}/products/{product}/present", present_view)
    r.add_post("/api/rooms/{room}/products/{product}/offers/{offer}/start", _offer_action("start_offer"))
    r.add_post("/api/rooms/{room}/products/{product}/offers/{offer}/stop", _offer_action("stop_offer"))
    r.add_post("/api/rooms/{room}/products/{product}/stock", stock_view)
    r.add_post("/api/reload", reload_view)
    return app


PROTECTED_ROUTES: tuple[tuple[str, str], ...] = (
    ("GET", "/api/rooms"),
    ("GET", "/api/rooms/{room}"),
    ("GET", "/api/rooms/{room}/chat"),
    ("GET", "/api/rooms/{room}/snapshot.jpg"),
    ("POST", "/api/rooms/{room}/say"),
    ("POST", "/api/rooms/{room}/skip"),
    ("POST", "/api/rooms/{room}/pause"),
    ("POST", "/api/rooms/{room}/resume"),
    ("POST", "/api/reload"),
)

# The product routes (a products room's; a room without products answers them 409): protected like the above.
PRODUCT_ROUTES: tuple[tuple[str, str], ...] = (
    ("GET", "/api/rooms/{room}/products"),
    ("POST", "/api/rooms/{room}/products/present"),
    ("POST", "/api/rooms/{room}/products/next"),
    ("POST", "/api/rooms/{room}/products/{product}/present"),
    ("POST", "/api/rooms/{room}/products/{product}/offers/{offer}/start"),
    ("POST", "/api/rooms/{room}/products/{product}/offers/{offer}/stop"),
    ("POST", "/api/rooms/{room}/products/{product}/stock"),
)


class AdminServer:
    """A running admin app: `.port`, `.url`, `.token_file` (when the token was generated), `await stop()`."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, token_file: Path | None):
        self.runner, self.host, self.port, self.token_file = runner, host, port, token_file

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def stop(self) -> None:
        await self.runner.cleanup()
        if self.token_file is not None:
            with contextlib.suppress(OSError):
                self.token_file.unlink()


async def start_admin(daemon: _Daemon, cfg: AdminConfig, *, stall_after_s: float = 5.0) -> AdminServer:
    """Serves the admin app on cfg.host:cfg.port (port 0 picks a free one; see .port)."""
    state_dir = getattr(getattr(getattr(daemon, "config", None), "daemon", None), "state_dir", None)
    token, token_file = resolve_token(cfg, state_dir)
    if token_file is not None:
        log.info("no daemon.admin.token set; generated one in %s", token_file)
    try:
        loopback = ipaddress.ip_address(cfg.host).is_loopback
    except ValueError:
        loopback = cfg.host == "localhost"
    if not loopback:
        log.warning("admin API listens on %s: put it behind TLS (a reverse proxy) before exposing it", cfg.host)
    app = create_app(daemon, cfg, token=token, stall_after_s=stall_after_s)
    runner = web.AppRunner(app, access_log_class=_AccessLogger, access_log=logging.getLogger("virtual-anchor.access"))
    await runner.setup()
    site = web.TCPSite(runner, cfg.host, cfg.port, reuse_address=True)
    await site.start()
    port = cfg.port
    server = getattr(site, "_server", None)
    sockets = getattr(server, "sockets", None) or []
    if sockets:
        port = sockets[0].getsockname()[1]
    log.info("admin API on %s:%d", cfg.host, port)
    return AdminServer(runner, cfg.host, port, token_file)
