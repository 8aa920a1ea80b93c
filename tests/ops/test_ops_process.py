"""`virtual-anchor run` as systemd starts it: notify socket, JSON logs on stdout, SIGHUP reload, SIGTERM stop."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

from ops_support import ADMIN_TOKEN, ROOT, STREAM_KEY, request, small_room, wait_for, write_config

from tests.support.servers import free_port


def _room_ids(port: int) -> list[str]:
    status, _, body = request("GET", f"http://127.0.0.1:{port}/api/rooms", token=ADMIN_TOKEN)
    return sorted(r["id"] for r in json.loads(body)["rooms"]) if status == 200 else []


def test_run_under_a_notify_socket(notify_socket, tmp_path):
    port = free_port()
    dead = f"rtmp://127.0.0.1:{free_port()}/live/{STREAM_KEY}"
    cfg = write_config(tmp_path / "config.yaml", port=port, rooms=[
        small_room("r1", [{"type": "rtmp", "url": dead, "name": "ingest", "reconnect_delay_s": 0.2}]),
    ])
    env = {k: v for k, v in os.environ.items() if k not in ("WATCHDOG_PID",)}
    env |= {"NOTIFY_SOCKET": notify_socket.env_value, "WATCHDOG_USEC": "2000000", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "broadcaster.cli", "run", "--config", str(cfg)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.extend(proc.stdout), daemon=True)  # type: ignore[arg-type]
    reader.start()
    try:
        msgs: list[dict[str, str]] = []
        assert wait_for(lambda: msgs.extend(notify_socket.messages()) or any("READY" in m for m in msgs), 60), msgs
        ready = next(m for m in msgs if "READY" in m)
        assert ready == {"READY": "1", "STATUS": "1 room on air"}
        assert request("GET", f"http://127.0.0.1:{port}/readyz")[0] == 200
        pings = notify_socket.collect(2.5)
        assert sum("WATCHDOG" in m for m in pings) >= 2

        # systemctl reload: SIGHUP re-reads the file (a second room appears)
        data = cfg.read_text().replace("rooms:\n", "rooms:\n- id: r2\n  outputs: []\n  video: {width: 320, height: 180}\n", 1)
        cfg.write_text(data)
        proc.send_signal(signal.SIGHUP)
        # (the notify socket's queue holds ten datagrams: keep reading it, or STOPPING finds it full)
        assert wait_for(lambda: (notify_socket.messages(), _room_ids(port))[1] == ["r1", "r2"], 30)

        # systemctl stop: SIGTERM, STOPPING=1, clean exit
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    reader.join(5)
    assert {"STOPPING": "1", "STATUS": "stopping"} in notify_socket.messages(timeout=1.0)
    stderr = proc.stderr.read() if proc.stderr else ""
    lines = [line for line in out if line.strip()]
    assert lines, f"JSON logs on stdout (stderr: {stderr[-2000:]})"
    records = [json.loads(line) for line in lines]  # journald gets one JSON object per line
    assert any(r["msg"].startswith("config reloaded") for r in records)
    assert any("ingest" in r["msg"] for r in records), "the dead sink's retries were logged"
    assert STREAM_KEY not in "".join(out) + stderr
