"""`virtual-anchor capacity`: a real room measured in its own process, publishing nothing, and the fit arithmetic."""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys

import pytest
from ops_support import ROOT, STREAM_KEY, write_config

from broadcaster.capacity import Host, RoomCost, fit, report, this_host

DEMO = ROOT / "configs" / "demo"
MIB = 2**20


def _cost(cores: float, rss_mib: int, gpu_mib: int | None = None, late: int = 0) -> RoomCost:
    return RoomCost(room="r", size="1280x720@25", avatar="builtin", voice="espeak", seconds=60.0, frames=1500,
                    late_frames=late, speaking_share=0.7, cores=cores, rss_bytes=rss_mib * MIB,
                    gpu_bytes=gpu_mib * MIB if gpu_mib else None,
                    gpu_total_bytes=80 * 1024 * MIB if gpu_mib else None, pid=1)


def test_fit_takes_the_scarcest_resource_with_headroom() -> None:
    host = Host(cores=32, memory_bytes=64 * 1024 * MIB)
    # CPU: 32 × 0.75 / 0.4 = 60; memory: 48 GiB / 300 MiB = 163.84 → 163
    f = fit(_cost(0.4, 300), host, 0.75)
    assert (f.by_cpu, f.by_memory, f.by_gpu, f.rooms, f.limit) == (60, 163, None, 60, "cpu")
    # a memory-hungry room on the same host: 64 GiB × 0.8 / 2 GiB = 25.6 → 25 < 32 × 0.8 / 0.4 = 64
    f = fit(_cost(0.4, 2048), host, 0.8)
    assert (f.by_cpu, f.by_memory, f.rooms, f.limit) == (64, 25, 25, "memory")
    # a room on a GPU: 80 GiB × 0.8 / 6 GiB = 10.67 → 10 (the device's total comes from the measurement)
    f = fit(_cost(0.4, 300, gpu_mib=6 * 1024), host, 0.8)
    assert (f.by_gpu, f.rooms, f.limit) == (10, 10, "gpu")
    # a host with a GPU of its own: its figure wins over the measured device's
    f = fit(_cost(0.4, 300, gpu_mib=6 * 1024), Host(32, 64 * 1024 * MIB, gpu_memory_bytes=24 * 1024 * MIB), 0.8)
    assert f.by_gpu == math.floor(24 * 0.8 / 6)
    with pytest.raises(ValueError, match="headroom"):
        fit(_cost(0.4, 300), host, 0.0)


def test_report_names_the_limit_and_warns_about_late_frames() -> None:
    host = Host(cores=2, memory_bytes=8 * 1024 * MIB)
    text = report(_cost(0.45, 250, late=30), host, fit(_cost(0.45, 250, late=30), host))
    assert "→ 3 rooms of this kind fit on this host; CPU is the limit" in text  # 2 × 0.8 / 0.45 = 3.56
    assert "0.450 cores" in text and "250 MiB" in text and "GPU memory" in text
    assert "2.00% of the frames were late" in text


def test_this_host_reports_usable_cores_and_memory() -> None:
    host = this_host()
    assert 0 < host.cores <= len(os.sched_getaffinity(0))
    assert host.memory_bytes > 256 * MIB


@pytest.mark.slow
def test_capacity_measures_a_speaking_room_in_its_own_process_and_publishes_nothing(tmp_path) -> None:
    ingest = socket.socket()  # a real listener where the room's RTMP output points: it must never be called
    ingest.bind(("127.0.0.1", 0))
    ingest.listen(1)
    ingest.setblocking(False)
    port = ingest.getsockname()[1]
    recording = tmp_path / "rec" / "r1.flv"
    cfg = write_config(tmp_path / "config.yaml", rooms=[{
        "id": "r1",
        "video": {"width": 320, "height": 180, "fps": 25, "bitrate_kbps": 300},
        "outputs": [{"type": "rtmp", "url": f"rtmp://127.0.0.1:{port}/live/{STREAM_KEY}"},
                    {"type": "record", "path": str(recording)}],
        "sources": [{"type": "replay", "path": str(DEMO / "chat.jsonl"), "loop": True}],
        "director": {"talk": {"file": str(DEMO / "talk.yaml"), "gap_s": 0.2}},
        "brain": {"kb": {"dir": str(DEMO / "kb")}},
        "audit": {"path": str(tmp_path / "audit.jsonl")},
    }])
    try:
        proc = subprocess.run([sys.executable, "-m", "broadcaster.cli", "capacity", "-c", str(cfg), "--seconds", "3",
                               "--warmup", "3", "--headroom", "0.5", "--json"],
                              cwd=ROOT, capture_output=True, text=True, timeout=240)
        assert proc.returncode == 0, proc.stderr[-3000:]
        with pytest.raises(BlockingIOError):
            ingest.accept()
    finally:
        ingest.close()
    assert STREAM_KEY not in proc.stdout + proc.stderr
    assert not recording.exists() and not (tmp_path / "audit.jsonl").exists()

    out = json.loads(proc.stdout)
    room, host, f = out["room"], out["host"], out["fit"]
    assert room["room"] == "r1" and room["size"] == "320x180@25" and room["avatar"] == "builtin"
    assert room["seconds"] >= 3.0 and room["frames"] > 0 and 0 <= room["late_frames"] <= room["frames"]
    assert 0 < room["cores"] < host["cores"]  # one small room: some CPU, never all of the host
    assert 20 * MIB < room["rss_bytes"] < 4096 * MIB
    assert room["speaking_share"] > 0  # the talk track was heard while measuring
    assert room["gpu_bytes"] is None  # the built-in avatar and espeak put nothing on a GPU
    assert room["pid"] > 0 and room["pid"] != os.getpid()
    cost = RoomCost(**{k: v for k, v in room.items() if k != "late_share"})
    assert f == {**fit(cost, Host(**host), 0.5).__dict__}
    assert f["rooms"] == min(f["by_cpu"], f["by_memory"]) == math.floor(
        min(host["cores"] * 0.5 / room["cores"], host["memory_bytes"] * 0.5 / room["rss_bytes"]))


def test_capacity_names_an_unknown_room(tmp_path) -> None:
    cfg = write_config(tmp_path / "config.yaml", rooms=[{"id": "r1", "outputs": []}])
    proc = subprocess.run([sys.executable, "-m", "broadcaster.cli", "capacity", "-c", str(cfg), "--room", "nope"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "no room 'nope' (rooms: r1)" in proc.stderr
