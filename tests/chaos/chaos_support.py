"""Chaos test helpers: a real daemon process (`virtual-anchor run`), its config, logs and admin API, and the gap
checks every chaos test ends with (recordings and the ingest's copy of the stream)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import yaml

from tests.support.media import probe
from tests.support.servers import ROOT, wait_until

DEMO = ROOT / "configs" / "demo"
STREAM_KEY = "sk_chaos_4f1d9a77c0ffee_NEVER_LOG"
ADMIN_TOKEN = "chaos-admin-token-9e2b7c41"
FPS = 25
MS = 0.0015  # FLV timestamps are whole milliseconds


class Daemon:
    """`python -m broadcaster.cli run -c CONFIG` with its stdout+stderr in a log file."""

    def __init__(self, tmp: Path, config: dict[str, Any], env: dict[str, str] | None = None):
        self.tmp = tmp
        self.config_path = tmp / "config.yaml"
        self.log_path = tmp / "daemon.log"
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = int(config["daemon"]["admin"]["port"])  # kept: the file may hold anything later on
        self.write(config)

    def write(self, config: dict[str, Any] | str) -> None:
        text = config if isinstance(config, str) else yaml.safe_dump(config, allow_unicode=True)
        tmp = self.config_path.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(self.config_path)  # atomically, as an operator's deploy tool would

    def start(self) -> Daemon:
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "broadcaster.cli", "run", "-c", str(self.config_path)],
                                     cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=self.env)
        log.close()
        return self

    def api(self, method: str, path: str, body: bytes | None = None, timeout: float = 60.0) -> tuple[int, Any]:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
            resp = conn.getresponse()
            raw = resp.read()
            try:
                return resp.status, json.loads(raw)
            except ValueError:
                return resp.status, raw
        finally:
            conn.close()

    def ready(self) -> bool:
        try:
            return self.api("GET", "/readyz", timeout=2.0)[0] == 200
        except OSError:
            return False

    def room(self, rid: str = "r") -> dict[str, Any]:
        return self.api("GET", f"/api/rooms/{rid}")[1]

    def sighup(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGHUP)

    def logs(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace") if self.log_path.exists() else ""

    def wait_log(self, text: str, timeout: float, after: int = 0) -> bool:
        """True once `text` appears in the log past character `after`."""
        return wait_until(lambda: text in self.logs()[after:], timeout, interval=0.2)

    def stop(self, timeout: float = 20.0) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else None
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            return None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def room(tmp: Path, rid: str = "r", *, rtmp_port: int | None = None, **extra: Any) -> dict[str, Any]:
    """The demo room, small: talk track, KB, looping chat replay (fresh message ids every pass), a recording,
    and an RTMP push carrying the stream key when rtmp_port is given."""
    outputs: list[dict[str, Any]] = [{"type": "record", "path": str(tmp / f"{rid}.flv"), "name": "rec"}]
    if rtmp_port is not None:
        outputs.append({"type": "rtmp", "url": f"rtmp://127.0.0.1:{rtmp_port}/live/{STREAM_KEY}", "name": "ingest",
                        "reconnect_delay_s": 0.2, "timeout_s": 2.0})
    cfg: dict[str, Any] = {
        "id": rid,
        "video": {"width": 320, "height": 180, "fps": FPS, "bitrate_kbps": 300},
        "outputs": outputs,
        "sources": [{"type": "replay", "path": str(DEMO / "chat.jsonl"), "loop": True, "speed": 4}],
        "director": {"talk": {"file": str(DEMO / "talk.yaml")}},
        "brain": {"kb": {"dir": str(DEMO / "kb")}},
        "audit": {"path": str(tmp / f"audit-{rid}.jsonl")},
    }
    cfg.update(extra)
    return cfg


def config(tmp: Path, rooms: list[dict[str, Any]], *, port: int | None = None, **daemon: Any) -> dict[str, Any]:
    return {
        "daemon": {"log_format": "json", "state_dir": str(tmp / "state"), "shutdown_grace_s": 2.0,
                   "admin": {"host": "127.0.0.1", "port": port or free_port(), "token": ADMIN_TOKEN}, **daemon},
        "rooms": rooms,
    }


def recordings(tmp: Path, rid: str = "r") -> list[Path]:
    """Every file of a room's recording, in the order they were started (r.flv, r~1.flv, …)."""
    files = [tmp / f"{rid}.flv", *sorted(tmp.glob(f"{rid}~*.flv"), key=lambda p: int(p.stem.split("~")[1]))]
    return [f for f in files if f.exists()]


def assert_no_gap(path: Path, *, min_seconds: float = 1.0, complete: bool = True) -> float:
    """The file's timeline is continuous: video every frame, audio every AAC frame, DTS monotonic, keyframes
    every 2 s; with `complete`, audio and video end together. Returns its duration in seconds."""
    p = probe(path, decode_video=False)
    assert p.video.packets and p.video.packets[0][2], f"{path.name}: must start with a keyframe"
    for name, track, step in (("video", p.video, 1 / FPS), ("audio", p.audio, 1024 / p.sample_rate)):
        dts = [pk[1] for pk in track.packets]
        assert all(b >= a for a, b in itertools.pairwise(dts)), f"{path.name}: {name} DTS goes back"
        times = [pk[0] for pk in track.packets] if name == "audio" else dts
        gaps = [(a, b - a) for a, b in itertools.pairwise(times) if b - a > step + MS]
        assert not gaps, f"{path.name}: {name} gaps (at s, length s): {gaps[:5]}"
    keys = p.keyframe_times()
    odd = [(a, b - a) for a, b in itertools.pairwise(keys) if abs(b - a - 2.0) > MS]
    assert not odd, f"{path.name}: keyframe intervals not 2 s: {odd[:5]}"
    assert p.video.duration >= min_seconds, f"{path.name}: only {p.video.duration:.2f}s"
    if complete:
        assert abs(p.audio.duration - p.video.duration) <= 1 / FPS + 1024 / p.sample_rate + MS, (
            path.name, p.audio.duration, p.video.duration)
    return p.video.duration


def assert_no_secret(*texts: str, secrets: tuple[str, ...] = (STREAM_KEY, ADMIN_TOKEN)) -> None:
    for secret in secrets:
        for text in texts:
            assert secret not in text, f"a secret ({secret[:4]}…) is in the logs"


def assert_json_logs(text: str) -> None:
    for line in text.splitlines():
        if line.strip():
            json.loads(line)  # every line a JSON object: no traceback dumped raw to stderr


class BlackHole:
    """A TCP listener that accepts and never answers (an ingest that hangs after the TCP handshake)."""

    def __init__(self, port: int):
        self.port = port
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.sock.listen(16)
        self.accepted: list[socket.socket] = []
        self._stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
                self.accepted.append(conn)
            except (TimeoutError, OSError):
                continue

    def close(self) -> None:
        self._stop.set()
        time.sleep(0.3)
        for conn in self.accepted:
            conn.close()
        self.sock.close()
