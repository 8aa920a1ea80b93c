"""Rooms per host: 1…N rooms at 1280x720@25 in one `virtual-anchor run`, all in the daemon's process
(`daemon.workers.mode: inline`) beside one worker process per room (`process`, the default), in one run.

    .venv/bin/python bench/bench_rooms.py                   # 1..5 rooms, 60 s measured per step after warm-up
    .venv/bin/python bench/bench_rooms.py --rooms 4 --seconds 30
    .venv/bin/python bench/bench_rooms.py --quick           # 1..2 rooms, 8 s: checks the bench itself

Every room speaks the demo talk track (espeak voice) with the built-in avatar and records to a temporary folder
(no RTMP). For each N and mode, the real daemon is started as operators start it, left to warm up, then measured:
late-frame share (late_frames / frames summed over the rooms, from the admin API /api/rooms), CPU per room
(CPU time of the daemon and every process under it — workers, the spare worker — over wall time, divided by N),
resident memory per room (the same processes), and what the rest of the machine used meanwhile (other
processes' CPU: the bench shares its host). Modes alternate within each N so a neighbour's burst hits both.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "configs" / "demo"
TOKEN = "bench-rooms-token"
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
GOAL_LATE = 0.001


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_config(path: Path, mode: str, rooms: int, port: int, width: int, height: int) -> Path:
    out = path.parent
    data = {
        "daemon": {
            "log_format": "text", "log_level": "warning", "state_dir": str(out / "state"),
            "admin": {"host": "127.0.0.1", "port": port, "token": TOKEN},
            "shutdown_grace_s": 1.0, "watch_config": False,
            "workers": {"mode": mode},
        },
        "rooms": [{
            "id": f"room{i}",
            "video": {"width": width, "height": height, "fps": 25},
            "outputs": [{"type": "record", "path": str(out / f"rec-room{i}.flv")}],
            "director": {"talk": {"file": str(DEMO / "talk.yaml")}},
            "brain": {"kb": {"dir": str(DEMO / "kb")}},
            "audit": {"path": str(out / "audit-{room}.jsonl")},
        } for i in range(1, rooms + 1)],
    }
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


# -- the daemon's process tree --------------------------------------------------------------------------------

def _stat(pid: int) -> tuple[int, float, int] | None:
    """(parent pid, CPU seconds, resident bytes) of a process, None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/statm") as f:
            rss = int(f.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, rss


def tree(root: int) -> dict[int, tuple[float, int]]:
    """CPU seconds and resident bytes of `root` and every process under it."""
    stats = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (s := _stat(int(name))) is not None:
            stats[int(name)] = s
    keep, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _, _) in stats.items():
            if ppid == parent and pid not in keep:
                keep.add(pid)
                frontier.append(pid)
    return {pid: stats[pid][1:] for pid in keep if pid in stats}


def machine_busy() -> float:
    """CPU seconds all processors have spent busy since boot (/proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = v[:8]
    return (user + nice + system + irq + softirq + steal) / TICK


# -- talking to the daemon ------------------------------------------------------------------------------------

def api_rooms(port: int) -> list[dict] | None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/api/rooms", headers={"Authorization": f"Bearer {TOKEN}"})
        resp = conn.getresponse()
        body = resp.read()
        return json.loads(body)["rooms"] if resp.status == 200 else None
    except (OSError, ValueError, KeyError):
        return None
    finally:
        conn.close()


def wait_on_air(port: int, rooms: int, proc: subprocess.Popen, timeout: float = 180.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the daemon exited with {proc.returncode}")
        status = api_rooms(port)
        if status and len(status) == rooms and all(r.get("on_air") and r.get("frames", 0) > 0 for r in status):
            return
        time.sleep(0.5)
    raise RuntimeError(f"{rooms} rooms not on air within {timeout:.0f}s")


def worker_pids(status: list[dict]) -> set[int]:
    """The rooms' own processes (the daemon's pid for inline rooms)."""
    return {int(r["worker"]["pid"]) for r in status if (r.get("worker") or {}).get("pid")}


def wait_spare_idle(root: int, rooms: set[int], timeout: float = 120.0) -> None:
    """Until every process under the daemon that is not a room (the spare worker, started once the rooms are on
    air) has finished its one-time loads: its CPU use over a second below 5%."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        a = tree(root)
        time.sleep(1.0)
        b = tree(root)
        busy = sum(c - a.get(pid, (0.0, 0))[0] for pid, (c, _) in b.items() if pid not in rooms and pid != root)
        if busy < 0.05:
            return
    print(f"  (the spare worker was still busy after {timeout:.0f}s)", flush=True)


@dataclass
class Step:
    mode: str
    rooms: int
    seconds: float
    frames: int
    late: int
    worst_late_share: float  # the room with the most late frames
    spoken: int  # lines the rooms finished speaking while measured (the talk tracks played)
    cpu_per_room: float  # cores: the daemon and every process under it, over N
    worker_cores: float  # one room's worker process on average (inline: the daemon over N)
    daemon_cores: float  # the daemon process itself (in inline mode: everything)
    spare_cores: float  # other processes under the daemon (the spare worker)
    rss_per_room: float  # bytes: the daemon and every process under it, over N
    worker_rss: float  # one room's worker process on average (inline: the daemon over N)
    others_cores: float  # what the rest of the machine used meanwhile
    load_before: float
    load_after: float

    @property
    def late_share(self) -> float:
        return self.late / self.frames if self.frames else 0.0


def _sums(status: list[dict]) -> dict[str, tuple[int, int, int]]:
    return {r["id"]: (int(r.get("frames", 0)), int(r.get("late_frames", 0)), int(r.get("spoken_lines", 0)))
            for r in status}


def run_step(mode: str, rooms: int, seconds: float, warmup: float, width: int, height: int, tmp: Path) -> Step:
    work = Path(tempfile.mkdtemp(prefix=f"{mode}{rooms}-", dir=tmp))
    port = free_port()
    cfg = write_config(work / "config.yaml", mode, rooms, port, width, height)
    log = (work / "daemon.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "broadcaster.cli", "run", "-c", str(cfg)], cwd=ROOT,
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_on_air(port, rooms, proc)
        time.sleep(warmup)
        wait_spare_idle(proc.pid, worker_pids(api_rooms(port) or []))
        load0 = os.getloadavg()[0]
        s0, t0, busy0, w0 = api_rooms(port), tree(proc.pid), machine_busy(), time.monotonic()
        time.sleep(seconds)
        s1, t1, busy1, w1 = api_rooms(port), tree(proc.pid), machine_busy(), time.monotonic()
        load1 = os.getloadavg()[0]
        if not s0 or not s1:
            raise RuntimeError("the admin API did not answer")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
    wall = w1 - w0
    a, b = _sums(s0), _sums(s1)
    frames = {rid: b[rid][0] - a[rid][0] for rid in b}
    late = {rid: b[rid][1] - a[rid][1] for rid in b}
    used = {pid: c - t0.get(pid, (0.0, 0))[0] for pid, (c, _) in t1.items()}  # a process new since t0 counts whole
    cpu = sum(used.values())
    rss = sum(r for _, r in t1.values())
    daemon_cpu = used.get(proc.pid, 0.0)
    workers = worker_pids(s1) - {proc.pid} or {proc.pid}
    worker_cpu = sum(used.get(pid, 0.0) for pid in workers)
    worker_rss = sum(t1.get(pid, (0.0, 0))[1] for pid in workers)
    spare_cpu = sum(c for pid, c in used.items() if pid not in workers and pid != proc.pid)
    return Step(
        mode=mode, rooms=rooms, seconds=wall, frames=sum(frames.values()), late=sum(late.values()),
        worst_late_share=max(late[r] / frames[r] if frames[r] else 0.0 for r in frames),
        spoken=sum(b[rid][2] - a[rid][2] for rid in b),
        cpu_per_room=cpu / wall / rooms, worker_cores=worker_cpu / wall / rooms, daemon_cores=daemon_cpu / wall,
        spare_cores=spare_cpu / wall, rss_per_room=rss / rooms, worker_rss=worker_rss / rooms,
        others_cores=max(0.0, (busy1 - busy0 - cpu) / wall), load_before=load0, load_after=load1,
    )


def print_table(steps: list[Step], cores: int) -> None:
    by = {(s.mode, s.rooms): s for s in steps}
    print()
    print(f"{'rooms':>5} | {'late % inline':>13} {'late % process':>14} | {'CPU/room inline':>15} "
          f"{'CPU/room process':>16} {'ratio p/i':>9} | {'RSS/room inline':>15} {'RSS/room process':>16} | "
          f"{'other load (cores)':>18} | {'lines spoken i/p':>16}")
    for n in sorted({s.rooms for s in steps}):
        i, p = by.get(("inline", n)), by.get(("process", n))

        def f(s: Step | None, fmt: str, attr: str, scale: float = 1.0) -> str:
            return format(getattr(s, attr) * scale, fmt) if s else "-"

        ratio = f"{p.cpu_per_room / i.cpu_per_room:.2f}" if i and p and i.cpu_per_room else "-"
        others = "/".join(f"{s.others_cores:.2f}" for s in (i, p) if s)
        spoken = "/".join(str(s.spoken) for s in (i, p) if s)
        print(f"{n:>5} | {f(i, '.3f', 'late_share', 100):>13} {f(p, '.3f', 'late_share', 100):>14} | "
              f"{f(i, '.3f', 'cpu_per_room'):>15} {f(p, '.3f', 'cpu_per_room'):>16} {ratio:>9} | "
              f"{f(i, '.0f', 'rss_per_room', 2**-20) + ' MiB':>15} {f(p, '.0f', 'rss_per_room', 2**-20) + ' MiB':>16} | "
              f"{others:>18} | {spoken:>16}")
    ok = [s.rooms for s in steps if s.mode == "process" and s.late_share < GOAL_LATE]
    first = min((s.rooms for s in steps), default=1)
    most = max((n for n in ok if all(m in ok for m in range(first, n + 1))), default=0)
    print(f"\nworker mode: up to {most} room(s) with < {GOAL_LATE:.1%} late frames on {cores} cores "
          f"(goal: ≥ 4 on 2 cores)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rooms", type=int, default=5, help="measure 1..ROOMS rooms (default 5)")
    ap.add_argument("--min-rooms", type=int, default=1, help="start at this many rooms (default 1)")
    ap.add_argument("--seconds", type=float, default=60.0, help="measured per step, after warm-up (default 60)")
    ap.add_argument("--warmup", type=float, default=10.0, help="seconds on air before measuring (default 10)")
    ap.add_argument("--modes", default="inline,process", help="comma-separated: inline, process")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--quick", action="store_true", help="1..2 rooms, 8 s after 4 s warm-up: checks the bench")
    ap.add_argument("--json", help="also write every step's figures to this file")
    args = ap.parse_args()
    if args.quick:
        args.rooms, args.seconds, args.warmup = min(args.rooms, 2), 8.0, 4.0
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    cores = os.cpu_count() or 1
    print(f"# {args.width}x{args.height}@25, built-in avatar, espeak talk track, record output; "
          f"{cores} CPUs; {args.seconds:g} s measured after {args.warmup:g} s warm-up per step; "
          f"load average {os.getloadavg()[0]:.2f} at start", flush=True)
    steps: list[Step] = []
    with tempfile.TemporaryDirectory(prefix="bench-rooms-") as tmp:
        for n in range(max(1, args.min_rooms), args.rooms + 1):
            order = modes if n % 2 else modes[::-1]
            for mode in order:
                s = run_step(mode, n, args.seconds, args.warmup, args.width, args.height, Path(tmp))
                steps.append(s)
                print(f"{mode:>7} x{n}: late {s.late}/{s.frames} ({100 * s.late_share:.3f}%, worst room "
                      f"{100 * s.worst_late_share:.3f}%), CPU/room {s.cpu_per_room:.3f} cores (worker "
                      f"{s.worker_cores:.3f}, daemon {s.daemon_cores:.3f}, spare {s.spare_cores:.3f}), RSS/room "
                      f"{s.rss_per_room / 2**20:.0f} MiB (worker {s.worker_rss / 2**20:.0f}), lines spoken {s.spoken}, "
                      f"others {s.others_cores:.2f} cores, load {s.load_before:.2f}→{s.load_after:.2f}", flush=True)
    print_table(steps, cores)
    if args.json:
        Path(args.json).write_text(json.dumps([{**s.__dict__, "late_share": s.late_share} for s in steps], indent=2))


if __name__ == "__main__":
    main()
