"""HTTP/WebSocket plumbing shared by the connectors: TLS settings, JSON calls that fail as SessionError."""

from __future__ import annotations

import json
import ssl
from typing import Any

import aiohttp
import aiohttp.abc

from danmaku.source import SessionError, describe_error

MAX_HTTP_BODY = 4 * 1024 * 1024


def ssl_setting(cfg: Any) -> ssl.SSLContext | bool:
    """The `ssl=` argument for aiohttp: verification on (system CAs plus `ca_file`) or off."""
    if not getattr(cfg, "tls_verify", True):
        return False
    ctx = ssl.create_default_context()
    ca_file = getattr(cfg, "ca_file", None)
    if ca_file is not None:
        ctx.load_verify_locations(cafile=str(ca_file.expanduser()))
    return ctx


def client_session(timeout_s: float, user_agent: str | None = None,
                   cookie_jar: aiohttp.abc.AbstractCookieJar | None = None) -> aiohttp.ClientSession:
    """An HTTP client; without `cookie_jar` cookies are handled by hand (a DummyCookieJar keeps none)."""
    headers = {"User-Agent": user_agent} if user_agent else None
    return aiohttp.ClientSession(
        timeout=aiohttp.ClientTimeout(total=timeout_s),
        headers=headers,
        cookie_jar=cookie_jar if cookie_jar is not None else aiohttp.DummyCookieJar(),
    )


async def read_limited(resp: aiohttp.ClientResponse, limit: int = MAX_HTTP_BODY) -> bytes:
    data = bytearray()
    async for chunk in resp.content.iter_chunked(65536):
        data += chunk
        if len(data) > limit:
            raise SessionError(f"{resp.method} {resp.url.path}: response larger than {limit} bytes")
    return bytes(data)


async def fetch(session: aiohttp.ClientSession, method: str, url: str, *, ssl_arg: ssl.SSLContext | bool, what: str,
                limit: int = MAX_HTTP_BODY, **kwargs: Any) -> tuple[int, bytes]:
    """One HTTP call → (status, body); network trouble and timeouts become a SessionError naming `what`."""
    try:
        async with session.request(method, url, ssl=ssl_arg, **kwargs) as resp:
            return resp.status, await read_limited(resp, limit)
    except aiohttp.ClientError as exc:
        raise SessionError(f"{what}: {describe_error(exc)}") from exc
    except TimeoutError as exc:
        raise SessionError(f"{what}: timed out") from exc


async def request_json(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    *,
    ssl_arg: ssl.SSLContext | bool,
    what: str,
    **kwargs: Any,
) -> tuple[Any, aiohttp.ClientResponse]:
    """Calls and parses JSON; any network, HTTP or shape problem becomes a SessionError naming `what`."""
    try:
        async with session.request(method, url, ssl=ssl_arg, **kwargs) as resp:
            body = await read_limited(resp)
            if resp.status >= 400:
                raise SessionError(f"{what}: HTTP {resp.status}")
            try:
                return json.loads(body), resp
            except (ValueError, UnicodeDecodeError) as exc:
                raise SessionError(f"{what}: response is not JSON") from exc
    except aiohttp.ClientError as exc:
        raise SessionError(f"{what}: {describe_error(exc)}") from exc
    except TimeoutError as exc:
        raise SessionError(f"{what}: timed out") from exc
