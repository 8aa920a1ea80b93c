"""Helpers for the ops tests: a datagram NOTIFY_SOCKET listener, a live daemon, plain HTTP requests."""

from __future__ import annotations

import asyncio
import http.client
import os
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


class NotifyListener:
    """A real AF_UNIX datagram socket standing in for systemd's notify socket."""

    def __init__(self, address: str | bytes, sock: socket.socket):
        self.address, self.sock = address, sock

    @property
    def env_value(self) -> str:
        if isinstance(self.address, bytes):
            return "@" + self.address[1:].decode()
        return self.address

    def messages(self, timeout: float = 0.0) -> list[dict[str, str]]:
        """Every datagram queued now; waits up to `timeout` for the first when none is."""
        out: list[dict[str, str]] = []
        if timeout > 0:
            self.sock.settimeout(timeout)
        else:
            self.sock.setblocking(False)
        while True:
            try:
                data = self.sock.recv(65536)
            except (BlockingIOError, TimeoutError):
                return out
            out.append(dict(line.split("=", 1) for line in data.decode().split("\n") if "=" in line))
            self.sock.setblocking(False)

    def collect(self, seconds: float) -> list[dict[str, str]]:
        """Every datagram that arrives within the next `seconds`."""
        deadline = time.monotonic() + seconds
        out: list[dict[str, str]] = []
        while (left := deadline - time.monotonic()) > 0:
            out += self.messages(timeout=left)
        return out


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[NotifyListener]:
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    try:
        yield NotifyListener(path, sock)
    finally:
        sock.close()


@pytest.fixture
def abstract_notify_socket() -> Iterator[NotifyListener]:
    name = b"\0virtual-anchor-test-" + os.urandom(6).hex().encode()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(name)
    try:
        yield NotifyListener(name, sock)
    finally:
        sock.close()


# ------------------------------------------------------------------------------------ a live daemon

STREAM_KEY = "sk_live_93f1c0ffee_DO_NOT_LEAK"
ADMIN_TOKEN = "admin-token-for-tests-4b1d"


def write_config(
    path: Path,
    *,
    rooms: list[dict[str, Any]],
    token: str | None = ADMIN_TOKEN,
    metrics_public: bool = True,
    state_dir: Path | None = None,
    port: int = 0,
    workers: str = "process",
) -> Path:
    admin: dict[str, Any] = {"host": "127.0.0.1", "port": port, "metrics_public": metrics_public}
    if token is not None:
        admin["token"] = token
    data = {
        "daemon": {
            "log_format": "json",
            "state_dir": str(state_dir or path.parent / "state"),
            "admin": admin,
            "shutdown_grace_s": 0.5,
            # process: each room in its worker, as in production; inline: a test reaches into the Room
            "workers": {"mode": workers},
            "watch_config": False,  # the tests reload when they mean to
        },
        "rooms": rooms,
    }
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def small_room(room_id: str, outputs: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "id": room_id,
        "video": {"width": 320, "height": 180, "fps": 25, "bitrate_kbps": 300},
        "outputs": outputs,
        **extra,
    }


class DaemonThread:
    """The real Daemon (rooms, admin API, watchdog) on its own event loop in a thread.

    Tests then talk to it the way an operator does, over HTTP, from plain synchronous code
    (which is also what Playwright's sync API needs).
    """

    def __init__(self, config_path: Path):
        self.config_path = config_path
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="daemon-loop", daemon=True)
        self.daemon: Any = None

    def call(self, coro: Any, timeout: float = 60.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self) -> DaemonThread:
        from broadcaster.config import load_config
        from broadcaster.daemon import Daemon

        self.thread.start()

        async def boot() -> Any:
            daemon = Daemon(load_config(self.config_path), self.config_path)
            await daemon.start()
            return daemon

        self.daemon = self.call(boot(), timeout=120)
        return self

    @property
    def url(self) -> str:
        return self.daemon.admin.url

    def room(self, room_id: str) -> Any:
        return self.daemon.rooms[room_id]

    def stop(self) -> None:
        try:
            if self.daemon is not None:
                self.call(self.daemon.stop(), timeout=60)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()


def request(
    method: str,
    url: str,
    *,
    token: str | None = None,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> tuple[int, dict[str, str], bytes]:
    """One plain HTTP/1.1 request; returns status, headers and body whatever the status."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    h = dict(headers or {})
    if token is not None:
        h["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body=body, headers=h)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def wait_for(predicate: Callable[[], Any], timeout: float, interval: float = 0.05) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return predicate()
