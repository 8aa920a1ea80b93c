"""Pluggable Douyin WS URL signers: an operator's command or HTTP service computes `signature`; we ship no JS."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from typing import Any, Protocol

import aiohttp

from danmaku.config import CommandSigner, HttpSigner, NoSigner
from danmaku.source import SessionError

# The 13 query keys that go into X-MS-STUB, in this order.
STUB_KEYS = (
    "live_id", "aid", "version_code", "webcast_sdk_version", "room_id", "sub_room_id", "sub_channel_id",
    "did_rule", "user_unique_id", "device_platform", "device_type", "ac", "identity",
)


def x_ms_stub(params: dict[str, str]) -> str:
    raw = ",".join(f"{k}={params.get(k, '')}" for k in STUB_KEYS)
    return hashlib.md5(raw.encode()).hexdigest()


class Signer(Protocol):
    async def sign(self, stub: str, url: str) -> str: ...


class _None:
    async def sign(self, stub: str, url: str) -> str:
        return ""


class _Command:
    def __init__(self, cfg: CommandSigner):
        self.cfg = cfg

    async def sign(self, stub: str, url: str) -> str:
        argv = [a.replace("{stub}", stub).replace("{url}", url) for a in self.cfg.argv]
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, stdin=asyncio.subprocess.DEVNULL
            )
        except OSError as exc:
            raise SessionError(f"signer command {argv[0]!r} could not start: {exc}") from exc
        try:
            out, err = await asyncio.wait_for(proc.communicate(), self.cfg.timeout_s)
        except TimeoutError as exc:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            raise SessionError(f"signer command timed out after {self.cfg.timeout_s:g} s") from exc
        if proc.returncode != 0:
            raise SessionError(f"signer command exited {proc.returncode}: {err.decode(errors='replace')[-200:]}")
        sig = out.decode(errors="replace").strip()
        if not sig:
            raise SessionError("signer command printed no signature")
        return sig


class _Http:
    def __init__(self, cfg: HttpSigner, ssl_arg: Any):
        self.cfg = cfg
        self._ssl = ssl_arg

    async def sign(self, stub: str, url: str) -> str:
        timeout = aiohttp.ClientTimeout(total=self.cfg.timeout_s)
        try:
            async with aiohttp.ClientSession(timeout=timeout) as s, s.post(
                self.cfg.url.get_secret_value(), json={"x_ms_stub": stub, "url": url}, ssl=self._ssl
            ) as resp:
                text = (await resp.content.read(65536)).decode(errors="replace")
                if resp.status >= 400:
                    raise SessionError(f"signer service: HTTP {resp.status}")
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise SessionError(f"signer service: {type(exc).__name__}: {exc}") from exc
        text = text.strip()
        if text.startswith("{"):
            try:
                sig = json.loads(text).get("signature", "")
            except (ValueError, AttributeError) as exc:
                raise SessionError("signer service: bad JSON") from exc
        else:
            sig = text
        if not isinstance(sig, str) or not sig:
            raise SessionError("signer service returned no signature")
        return sig


def make_signer(cfg: CommandSigner | HttpSigner | NoSigner, ssl_arg: Any = None) -> Signer:
    if isinstance(cfg, CommandSigner):
        return _Command(cfg)
    if isinstance(cfg, HttpSigner):
        return _Http(cfg, ssl_arg)
    return _None()
