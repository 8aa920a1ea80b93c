"""Real RTMP servers on loopback for tests: FFmpeg's listener (a subprocess) and nginx with the rtmp module."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.support.programs import require_file, require_program

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port: int) -> bool:
    """True when something listens on 127.0.0.1:port, checked without connecting (a connect would be
    taken as the one publisher by FFmpeg's listener)."""
    want = f":{port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if parts[1].endswith(want) and parts[3] == "0A":
                return True
    return False


def wait_until(predicate, timeout: float, interval: float = 0.05) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


class FfmpegIngest:
    """`python -m tests.support.rtmp_listen`: accepts one publisher and remuxes it into `out`."""

    def __init__(self, port: int, out: Path, key: str = "secret-key"):
        self.port, self.out, self.key = port, out, key
        self.url = f"rtmp://127.0.0.1:{port}/live/{key}"
        self.proc: subprocess.Popen | None = None
        self.connected_at: float | None = None
        self.started_at = 0.0

    def start(self) -> FfmpegIngest:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.support.rtmp_listen", self.url, str(self.out)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        self.output: list[str] = []
        self._published = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        # A fast client may be accepted before we look (FFmpeg closes its listening socket on accept).
        if not wait_until(lambda: listening(self.port) or bool(self.output), 20):
            raise RuntimeError(f"the FFmpeg RTMP listener did not start: {''.join(self.output)[-2000:]}")
        self.started_at = time.monotonic()
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)
            if "publisher connected" in line and not self._published.is_set():
                self.connected_at = time.monotonic()
                self._published.set()

    def wait_publisher(self, timeout: float) -> bool:
        """Blocks until the listener says a publisher is streaming (it has probed the streams)."""
        return self._published.wait(timeout)

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)

    def finish(self, timeout: float = 15) -> None:
        """Waits for the listener to see the publisher leave and close its file."""
        if self.proc:
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
                self.proc.wait(5)


class NginxRtmp:
    """nginx with libnginx-mod-rtmp on a free port; `record all` dumps each publish to an FLV file."""

    def __init__(self, workdir: Path):
        self.dir = workdir
        self.port = free_port()
        self.record_dir = workdir / "rec"
        self.proc: subprocess.Popen | None = None

    @property
    def url_base(self) -> str:
        return f"rtmp://127.0.0.1:{self.port}/live"

    def start(self) -> NginxRtmp:
        nginx = require_program("nginx")
        module = require_file("/usr/lib/nginx/modules/ngx_rtmp_module.so")
        self.record_dir.mkdir(parents=True, exist_ok=True)
        (self.dir / "logs").mkdir(exist_ok=True)
        conf = self.dir / "nginx.conf"
        conf.write_text(f"""
load_module {module};
daemon off;
master_process off;
worker_processes 1;
error_log stderr warn;
pid {self.dir}/nginx.pid;
events {{ worker_connections 64; }}
rtmp {{
  server {{
    listen 127.0.0.1:{self.port};
    chunk_size 4096;
    application live {{
      live on;
      wait_key on;
      record all;
      record_path {self.record_dir};
      record_unique on;
    }}
  }}
}}
""")
        self.proc = subprocess.Popen([nginx, "-c", str(conf), "-p", str(self.dir)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if not wait_until(lambda: listening(self.port), 10):
            err = self.proc.stderr.read().decode() if self.proc.poll() is not None and self.proc.stderr else ""
            raise RuntimeError(f"nginx did not start: {err}")
        return self

    def recordings(self) -> list[Path]:
        return sorted(self.record_dir.glob("*.flv"))

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful: finalizes record files
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
