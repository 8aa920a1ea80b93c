"""A recording that cannot be written at run time — its disk full, its folder deleted mid-stream — is logged and
shown in health once per change of state, counted, retried on its backoff, and healed without a restart; the
other recording and the room stay on air. The daemon runs for real (`virtual-anchor run`), as root and as nobody."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from ops_support import request, wait_for
from privileges import ROOT, USERS, cli, environment, open_folder, tmpfs, user

from tests.media.streamcheck import assert_valid_stream
from tests.support.media import probe
from tests.support.servers import free_port

FREE = 48 * 1024  # what the disk has left when the room starts: about 2 s of this room's media


class Daemon:
    """`virtual-anchor run` in a subprocess; its JSON log lines collected as they come."""

    def __init__(self, argv: list[str], home: Path, port: int):
        self.port = port
        self.lines: list[str] = []
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=environment(home), stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in list(self.lines) if x.startswith("{")]

    def said(self, sink: str, level: str, words: str = "") -> list[str]:
        return [r["msg"] for r in self.records()
                if r["level"] == level and r["msg"].startswith(f"sink {sink}:") and words in r["msg"]]

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            status, _, body = request("GET", f"http://127.0.0.1:{self.port}{path}", timeout=5)
        except OSError:
            return 0, b""
        return status, body

    def ready(self) -> dict[str, Any] | None:
        status, body = self.get("/readyz")
        return json.loads(body) if status == 200 else None

    def faults(self, sink: str, reason: str) -> float:
        _, body = self.get("/metrics")
        for labels, value in re.findall(r"^va_sink_faults_total\{(.*)\} (\S+)$", body.decode(), re.M):
            if {f'sink="{sink}"', f'reason="{reason}"'} <= set(labels.split(",")):
                return float(value)
        return 0.0

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(30)
        finally:
            self._reader.join(5)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def write_config(d: Path, disk: Path, port: int) -> Path:
    room = {
        "id": "r",
        "video": {"width": 160, "height": 96, "fps": 10, "bitrate_kbps": 100, "keyframe_seconds": 1},
        "audio": {"bitrate_kbps": 64},
        "outputs": [
            {"type": "record", "name": "full", "path": str(disk / "full.flv")},
            {"type": "record", "name": "gone", "path": str(d / "gone" / "rec.flv")},
            {"type": "record", "name": "ok", "path": str(d / "ok" / "rec.flv")},
        ],
    }
    cfg = d / "cfg.yaml"
    cfg.write_text(yaml.safe_dump({
        "daemon": {"state_dir": str(d / "state"), "log_format": "json", "shutdown_grace_s": 0.5,
                   "admin": {"port": port, "token": "t"}, "workers": {"mode": "inline"}, "watch_config": False},
        "rooms": [room],
    }))
    cfg.chmod(0o644)
    return cfg


@pytest.mark.slow
@pytest.mark.parametrize("who_name", USERS)
def test_a_full_disk_and_a_deleted_folder_are_reported_once_per_change_of_state(who_name):
    who = user(who_name)
    with open_folder() as d, tmpfs(d / "disk", "size=1m,mode=0777") as disk:
        (d / "home").mkdir()
        (d / "gone").mkdir()
        filler = disk / "filler"
        filler.write_bytes(b"\0" * (1024 * 1024 - FREE))
        who.own(d / "home", d / "gone", d)
        port = free_port()
        cfg = write_config(d, disk, port)
        daemon = Daemon(who.argv(cli("run", "-c", str(cfg))), d / "home", port)
        health: list[dict[str, Any] | None] = []
        try:
            assert wait_for(daemon.ready, 90, 0.2), "\n".join(daemon.lines[-30:])
            # The disk fills: one error line, however many tries the backoff makes meanwhile.
            assert wait_for(lambda: daemon.faults("full", "disk_full") >= 2, 30, 0.2), "\n".join(daemon.lines[-30:])
            health.append(daemon.ready())
            # The folder of another recording is deleted while it writes there.
            assert wait_for(lambda: (d / "gone" / "rec.flv").exists(), 10)
            shutil.rmtree(d / "gone")
            assert wait_for(lambda: daemon.said("gone", "info", "recording again"), 15), "\n".join(daemon.lines[-30:])
            health.append(daemon.ready())
            # Room is made on the disk: the full recording heals on its next try.
            filler.unlink()
            assert wait_for(lambda: daemon.said("full", "info", "recording again"), 40), "\n".join(daemon.lines[-30:])
            time.sleep(1.5)
            health.append(daemon.ready())
            assert daemon.stop() == 0, "\n".join(daemon.lines[-30:])
        finally:
            daemon.kill()
        on_disk = sorted((p.name, p.stat().st_size) for p in disk.iterdir())
        gone_again = probe(d / "gone" / "rec.flv")
        ok = probe(d / "ok" / "rec.flv")
        log = daemon.lines
    full_errors = daemon.said("full", "error")
    assert len(full_errors) == 1 and "write failed" in full_errors[0] and "No space left on device" in full_errors[0], log
    assert len(daemon.said("full", "info", "recording again")) == 1, log
    gone_errors = daemon.said("gone", "error")
    assert len(gone_errors) == 1 and "recording file deleted" in gone_errors[0], log
    assert len(daemon.said("gone", "info", "recording again")) == 1, log
    assert daemon.said("ok", "error") == [] and daemon.said("ok", "warning") == [], log
    # Health showed each fault while it lasted and nothing once healed; the room was on air throughout.
    assert health[0] is not None and "r/full: disk_full" in health[0].get("sinks_failing", []), health
    assert health[2] is not None and "sinks_failing" not in health[2], health
    # The disk holds the recording that filled it and the one after it healed, not an empty file per try.
    assert [name for name, _ in on_disk] == ["full.flv", "full~1.flv"] and all(size > 0 for _, size in on_disk), on_disk
    # The deleted folder was made again and its recording carried on; the other recording never stopped.
    assert gone_again.video.duration > 1.0
    assert_valid_stream(ok, width=160, height=96, fps=10, sample_rate=44100, gop_s=1.0, min_seconds=5.0)
