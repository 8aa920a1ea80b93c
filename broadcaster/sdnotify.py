"""sd_notify in pure Python: READY / WATCHDOG / STATUS / STOPPING datagrams to systemd's NOTIFY_SOCKET."""

from __future__ import annotations

import errno
import logging
import os
import socket

log = logging.getLogger(__name__)


def _socket_address(raw: str) -> str | bytes | None:
    """NOTIFY_SOCKET is a filesystem path or, with a leading '@', a Linux abstract socket name."""
    if not raw:
        return None
    if raw.startswith("@"):
        return b"\0" + raw[1:].encode()
    if raw.startswith("/"):
        return raw
    return None  # vsock:… and other forms systemd may grow are not for us


def watchdog_interval(env: dict[str, str] | None = None) -> float | None:
    """The watchdog period in seconds systemd expects (WATCHDOG_USEC), or None when not watched.

    WATCHDOG_PID, when set, names the process that must ping; any other process (a forked worker
    that inherited the environment) must not act as the watchdog.
    """
    env = os.environ if env is None else env
    usec = env.get("WATCHDOG_USEC", "")
    if not usec:
        return None
    pid = env.get("WATCHDOG_PID", "")
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    try:
        value = int(usec)
    except ValueError:
        return None
    return value / 1e6 if value > 0 else None


class Notifier:
    """Sends sd_notify state lines. Does nothing (and says so once) when not started by systemd.

    Sends are non-blocking: a full receive queue on systemd's side must never stall the caller,
    which may be the event loop. A lost WATCHDOG ping is resent at the next interval anyway.
    """

    def __init__(self, address: str | None = None):
        raw = os.environ.get("NOTIFY_SOCKET", "") if address is None else address
        self.address = _socket_address(raw)
        self._sock: socket.socket | None = None
        if raw and self.address is None:
            log.warning("NOTIFY_SOCKET %r is not a unix socket; sd_notify disabled", raw)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, **fields: str | int) -> bool:
        """Sends one datagram of KEY=VALUE lines (keys upper-cased); True when it went out."""
        if self.address is None:
            return False
        lines = []
        for key, value in fields.items():
            text = str(value).replace("\n", " ")  # one field per line: a newline would forge another
            lines.append(f"{key.upper()}={text}")
        payload = "\n".join(lines).encode("utf-8")
        if self._sock is None:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.setblocking(False)
        try:
            self._sock.sendto(payload, self.address)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.ECONNREFUSED, errno.ENOENT):
                log.warning("sd_notify failed: %s", exc)
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        return self.send(READY=1, **({"STATUS": status} if status else {}))

    def watchdog(self) -> bool:
        return self.send(WATCHDOG=1)

    def status(self, text: str) -> bool:
        return self.send(STATUS=text)

    def stopping(self, status: str | None = None) -> bool:
        return self.send(STOPPING=1, **({"STATUS": status} if status else {}))

    def reloading(self, status: str | None = None) -> bool:
        return self.send(RELOADING=1, **({"STATUS": status} if status else {}))

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
