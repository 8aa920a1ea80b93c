"""A worker process per room: a room that is killed, hangs or outgrows its memory limit comes back alone; reloads,
metrics and SIGTERM go through the workers; the other rooms never notice (read back from their recordings)."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from broadcaster.config import load_config
from broadcaster.daemon import Daemon
from tests.chaos.chaos_support import ADMIN_TOKEN, FPS, assert_no_gap, free_port, recordings
from tests.chaos.chaos_support import Daemon as DaemonProcess
from tests.support.servers import wait_until

TALK = {"segments": [{"name": "pitch", "lines": ["欢迎来到直播间。", "今天的保温杯很划算。"]}]}


def room(tmp: Path, rid: str, **extra: Any) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "id": rid,
        "video": {"width": 320, "height": 180, "fps": FPS, "bitrate_kbps": 300},
        "outputs": [{"type": "record", "path": str(tmp / f"{rid}.flv"), "name": "rec"}],
        "audit": {"path": str(tmp / f"audit-{rid}.jsonl")},
    }
    cfg.update(extra)
    return cfg


def config(tmp: Path, rooms: list[dict[str, Any]], *, port: int = 0, **daemon: Any) -> dict[str, Any]:
    return {
        "daemon": {"log_format": "json", "state_dir": str(tmp / "state"), "shutdown_grace_s": 2.0,
                   "admin": {"host": "127.0.0.1", "port": port, "token": ADMIN_TOKEN},
                   "watch_config": False, **daemon},
        "rooms": rooms,
    }


def write(path: Path, cfg: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(cfg, allow_unicode=True), encoding="utf-8")
    return path


def rooms_of(d: DaemonProcess) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in d.api("GET", "/api/rooms")[1]["rooms"]}


def samples(text: str, name: str) -> dict[str, float]:
    """room → value of one family's samples named `name` in a scrape."""
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name:
                out[s.labels.get("room", "")] = s.value
    return out


async def until(pred, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


@pytest.mark.slow
def test_kill_9_one_worker_it_comes_back_alone_and_one_scrape_holds_both(tmp_path):
    """`virtual-anchor run` with two rooms: both workers' series in one scrape; room a's worker killed -9 is
    back on air by itself (seconds printed) in a new recording file; room b's worker and recording go on
    untouched; SIGTERM drains both and exits 0."""
    port = free_port()
    d = DaemonProcess(tmp_path, config(tmp_path, [room(tmp_path, "a"), room(tmp_path, "b")], port=port))
    d.start()
    try:
        assert wait_until(d.ready, 90), d.logs()[-3000:]
        before = rooms_of(d)
        pid_a, pid_b = before["a"]["worker"]["pid"], before["b"]["worker"]["pid"]
        assert pid_a != pid_b and d.proc is not None and d.proc.pid not in (pid_a, pid_b)
        assert before["a"]["worker"]["rss_bytes"] > 10 * 2**20

        status, scrape = d.api("GET", "/metrics")
        text = scrape.decode() if isinstance(scrape, bytes) else str(scrape)
        assert status == 200
        frames = samples(text, "va_frames_total")
        assert set(frames) == {"a", "b"} and all(v > 0 for v in frames.values()), frames
        names = [f.name for f in text_string_to_metric_families(text)]
        assert len(names) == len(set(names)), "each family once, its samples from every worker"
        assert samples(text, "va_rooms_on_air") == {"": 2.0}

        def sinks() -> dict[str, float]:
            return samples(str(d.api("GET", "/metrics")[1], "utf-8"), "va_sink_connected")

        # On air (the clock runs) comes first; a recording opens on the first keyframe, under load a little later.
        assert wait_until(lambda: sinks() == {"a": 1.0, "b": 1.0}, 10, 0.1), sinks()

        time.sleep(1.0)
        killed = time.monotonic()
        os.kill(pid_a, signal.SIGKILL)
        assert wait_until(lambda: (r := rooms_of(d)["a"])["on_air"] and r["worker"]["pid"] != pid_a, 30, 0.02), \
            d.logs()[-3000:]
        back_s = time.monotonic() - killed
        print(f"\nroom a back on air {back_s:.2f}s after its worker was killed -9 (goal <= 5 s)")
        after = rooms_of(d)
        assert after["a"]["worker"]["restarts"] == 1 and after["a"]["worker"]["restart_reasons"] == {"exit": 1}
        assert after["b"]["worker"]["pid"] == pid_b and after["b"]["worker"]["restarts"] == 0
        assert d.ready()
        text = d.api("GET", "/metrics")[1].decode()
        assert 'va_worker_restarts_total{reason="exit",room="a"} 1.0' in text
        time.sleep(2.0)
        frames_b = rooms_of(d)["b"]["frames"]
    finally:
        code = d.stop(30)
    assert code == 0, d.logs()[-3000:]
    logs = d.logs()
    assert logs.count("restarting it in") == 1, "one log line for the one restart"
    # Room b's one recording spans the whole run, room a's goes on in a new file after the restart.
    assert recordings(tmp_path, "b") == [tmp_path / "b.flv"]
    duration_b = assert_no_gap(tmp_path / "b.flv", min_seconds=2.5)  # on air through the 1 s + 2 s sleeps above, at least
    assert duration_b >= frames_b / FPS - 0.1, "no frame of room b went missing"
    files_a = recordings(tmp_path, "a")
    assert files_a == [tmp_path / "a.flv", tmp_path / "a~1.flv"], files_a
    assert_no_gap(files_a[0], min_seconds=1.0, complete=False)  # killed -9: cut off mid-GOP
    assert_no_gap(files_a[1], min_seconds=1.0)


@pytest.mark.slow
async def test_reload_of_one_room_leaves_the_other_worker_untouched(tmp_path):
    """Content (talk track) applies live inside a's worker; a media change (bitrate) is handed over inside it;
    a change that cannot be prepared leaves a's old config on air. b keeps its pid and a gapless recording."""
    (tmp_path / "talk.yaml").write_text(yaml.safe_dump(TALK, allow_unicode=True), encoding="utf-8")
    talk = {"talk": {"file": str(tmp_path / "talk.yaml"), "gap_s": 0.2}}
    path = write(tmp_path / "c.yaml", config(tmp_path, [room(tmp_path, "a"), room(tmp_path, "b")]))
    daemon = Daemon(load_config(path), path)
    await daemon.start()
    try:
        a, b = daemon.rooms["a"], daemon.rooms["b"]
        pid_a, pid_b = a.pid, b.pid
        await asyncio.sleep(1.0)

        write(path, config(tmp_path, [room(tmp_path, "a", director=talk), room(tmp_path, "b")]))
        result = await daemon.reload()
        assert result["live"] == ["a"] and result["unchanged"] == ["b"] and not result["failed"], result
        assert a.pid == pid_a, "a content change applies inside the running worker"

        write(path, config(tmp_path, [room(tmp_path, "a", director=talk, avatar={"kind": "portrait",
                                                                               "path": str(tmp_path / "c.yaml")}),
                                      room(tmp_path, "b")]))
        result = await daemon.reload()
        assert set(result["failed"]) == {"a"} and a.pid == pid_a and a.status()["on_air"], result
        assert daemon.config.room("a").avatar.kind != "portrait", "a's running config stays the old one"

        faster = {"width": 320, "height": 180, "fps": FPS, "bitrate_kbps": 400}
        write(path, config(tmp_path, [room(tmp_path, "a", director=talk, video=faster), room(tmp_path, "b")]))
        result = await daemon.reload()
        assert result["changed"] == ["a"] and result["unchanged"] == ["b"] and not result["failed"], result
        assert a.pid == pid_a and a.cfg.video.bitrate_kbps == 400, "the hand-over happened inside a's worker"
        await until(lambda: a.status()["on_air"] and a.status()["frames"] > 25, 20, "a on air after the hand-over")
        assert b.pid == pid_b and b.restarts == 0 and daemon.rooms["b"] is b
        frames_b = b.status()["frames"]
    finally:
        await daemon.stop()
    assert recordings(tmp_path, "b") == [tmp_path / "b.flv"]
    assert assert_no_gap(tmp_path / "b.flv", min_seconds=2.0) >= frames_b / FPS - 0.1
    assert len(recordings(tmp_path, "a")) == 2, "the media change went on in a new file"
    for f in recordings(tmp_path, "a"):
        assert_no_gap(f, min_seconds=0.5)


@pytest.mark.slow
async def test_a_worker_whose_clock_hangs_is_restarted(tmp_path, monkeypatch):
    """clock.hang injected in room a's worker (VA_FAULTS is inherited): the supervisor kills it and starts a
    new one; room b is left alone."""
    monkeypatch.setenv("VA_FAULTS", "clock.hang@a+8")  # 8 s after each of a's workers armed it
    path = write(tmp_path / "h.yaml", config(tmp_path, [room(tmp_path, "a"), room(tmp_path, "b")],
                                             workers={"hang_after_s": 1.5, "restart_backoff_s": 0.2}))
    daemon = Daemon(load_config(path), path)
    await daemon.start()
    try:
        a, b = daemon.rooms["a"], daemon.rooms["b"]
        pid_a, pid_b = a.pid, b.pid
        await until(lambda: a.restart_reasons.get("hang", 0) >= 1, 30, "a restart for the hang")
        assert a.last_restart is not None and a.last_restart["pid"] == pid_a
        await until(lambda: a.state == "live" and a.pid != pid_a and a.status()["frames"] > 10, 30,
                    "a new worker on air")
        assert b.pid == pid_b and b.restarts == 0
    finally:
        await daemon.stop()
    assert recordings(tmp_path, "b") == [tmp_path / "b.flv"]
    assert_no_gap(tmp_path / "b.flv", min_seconds=2.0)


async def test_a_worker_over_its_memory_limit_is_restarted(tmp_path):
    path = write(tmp_path / "m.yaml", config(tmp_path, [room(tmp_path, "a")],
                                             workers={"memory_limit_mb": 16, "restart_backoff_s": 5.0}))
    daemon = Daemon(load_config(path), path)
    await daemon.start()
    try:
        a = daemon.rooms["a"]
        await until(lambda: a.restart_reasons.get("memory", 0) >= 1, 10, "a restart for memory")
        assert "MiB limit" in a.last_restart["detail"]
        assert a.status()["restarting"] is True and a.status()["on_air"] is False
        text = (await daemon.scrape()).decode()
        assert 'va_worker_restarts_total{reason="memory",room="a"} 1.0' in text
    finally:
        await daemon.stop()


def _gone(pid: int) -> bool:
    """Exited (a zombie nobody reaped yet counts: it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.slow
def test_workers_die_with_a_daemon_killed_9(tmp_path):
    """No orphan keeps a stream key or a recording busy after the daemon is gone."""
    d = DaemonProcess(tmp_path, config(tmp_path, [room(tmp_path, "a")], port=free_port()))
    d.start()
    try:
        assert wait_until(d.ready, 90), d.logs()[-3000:]
        pid = rooms_of(d)["a"]["worker"]["pid"]
        assert not _gone(pid)
    finally:
        d.kill()
    assert wait_until(lambda: _gone(pid), 10), "the worker outlived its daemon"
