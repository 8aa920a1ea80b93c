"""`virtual-anchor capacity`: runs one room for real in a child process and says how many such rooms fit here.

The room runs at its configured size with its own avatar and voice, its talk track speaking, but publishes
nothing: its outputs are replaced by one recording in a temporary folder, its chat sources and Redis are left
out, its audit log goes to the temporary folder too. After a warm-up, the child process measures its own CPU
time (every thread: clock, encoder, sinks, voice, show), its resident memory and, when the room put a model on a
CUDA device, the peak GPU memory torch allocated. The fit is then plain arithmetic over this host's cores and
memory (cgroup limits included) with a headroom factor, and the resource that runs out first is named.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import pickle
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from broadcaster.config import Config, RecordOutput, RoomConfig

DEFAULT_HEADROOM = 0.8  # of cores and memory given to rooms: the daemon, the OS and bursts keep the rest
LATE_WARNING = 0.001  # late frames above this share: the host was too busy for the figure to be trusted
_CHILD_EXTRA_S = 180.0  # besides warm-up and measurement: start (models) and stop


@dataclass(frozen=True)
class Job:
    """What the measuring child runs (pickled to its stdin: the room config may hold secrets)."""

    room: RoomConfig
    secrets: list[str]
    seconds: float
    warmup_s: float
    state_dir: Path
    result: Path


@dataclass(frozen=True)
class RoomCost:
    """One room's measured cost on this host."""

    room: str
    size: str  # "1280x720@25"
    avatar: str
    voice: str
    seconds: float  # measured (after warm-up)
    frames: int
    late_frames: int
    speaking_share: float  # of the measured frames, those the talk track was speaking
    cores: float  # CPU seconds per wall second of the room's process
    rss_bytes: int  # peak resident memory of the room's process while measured
    gpu_bytes: int | None  # torch.cuda.max_memory_allocated; None: no CUDA device used
    gpu_total_bytes: int | None
    pid: int

    @property
    def late_share(self) -> float:
        return self.late_frames / self.frames if self.frames else 0.0


@dataclass(frozen=True)
class Host:
    cores: float  # CPUs this process may use (affinity, cgroup quota)
    memory_bytes: int  # physical memory, or the cgroup limit when lower
    gpu_memory_bytes: int | None = None


@dataclass(frozen=True)
class Fit:
    headroom: float
    by_cpu: int
    by_memory: int
    by_gpu: int | None
    rooms: int
    limit: str  # "cpu" | "memory" | "gpu"


def fit(cost: RoomCost, host: Host, headroom: float = DEFAULT_HEADROOM) -> Fit:
    """Rooms of this cost that fit on `host` using `headroom` of each resource; the smallest count wins."""
    if not 0 < headroom <= 1:
        raise ValueError(f"headroom must be in (0, 1], got {headroom}")
    by_cpu = math.floor(host.cores * headroom / cost.cores) if cost.cores > 0 else 0
    by_memory = math.floor(host.memory_bytes * headroom / cost.rss_bytes) if cost.rss_bytes > 0 else 0
    by_gpu = None
    if cost.gpu_bytes:
        total = host.gpu_memory_bytes or cost.gpu_total_bytes
        by_gpu = math.floor(total * headroom / cost.gpu_bytes) if total else None
    counts = {"cpu": by_cpu, "memory": by_memory}
    if by_gpu is not None:
        counts["gpu"] = by_gpu
    limit = min(counts, key=lambda k: counts[k])
    return Fit(headroom, by_cpu, by_memory, by_gpu, counts[limit], limit)


# -- this host ------------------------------------------------------------------------------------------------

def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def host_cores() -> float:
    """CPUs this process may run on, lowered by a cgroup v2 CPU quota (a container's --cpus)."""
    cores = float(len(os.sched_getaffinity(0))) if hasattr(os, "sched_getaffinity") else float(os.cpu_count() or 1)
    quota = _read("/sys/fs/cgroup/cpu.max")
    if quota:
        limit, _, period = quota.partition(" ")
        if limit != "max" and period:
            cores = min(cores, int(limit) / int(period))
    return cores


def host_memory() -> int:
    """Physical memory, or the cgroup v2 memory limit when that is lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    limit = _read("/sys/fs/cgroup/memory.max")
    if limit and limit != "max":
        total = min(total, int(limit))
    return total


def this_host() -> Host:
    return Host(host_cores(), host_memory())


# -- the measurement ------------------------------------------------------------------------------------------

def measurement_room(room: RoomConfig, out_dir: Path) -> RoomConfig:
    """The room as measured: same media, avatar, voice, talk track and brain; nothing leaves the host."""
    record = RecordOutput(type="record", path=out_dir / f"capacity-{room.id}.flv", name="capacity")
    audit = room.audit.model_copy(update={"path": out_dir / "audit-{room}.jsonl"})
    return room.model_copy(update={"outputs": [record], "sources": [], "redis_url": None, "audit": audit})


def measure(config: Config, room_id: str | None = None, seconds: float = 30.0, warmup_s: float = 5.0) -> RoomCost:
    """Runs the room in a child process (`python -m broadcaster.capacity`) and returns what it cost."""
    from broadcaster.logs import secrets_of

    if room_id is None:
        room = config.rooms[0]
    else:
        try:
            room = config.room(room_id)
        except KeyError:
            raise ValueError(f"no room {room_id!r} (rooms: {', '.join(r.id for r in config.rooms)})") from None
    with tempfile.TemporaryDirectory(prefix="va-capacity-") as tmp:
        out = Path(tmp)
        job = Job(measurement_room(room, out), secrets_of(config), seconds, warmup_s, out / "state",
                  out / "result.json")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).resolve().parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])])}
        proc = subprocess.Popen([sys.executable, "-m", "broadcaster.capacity"], stdin=subprocess.PIPE,
                                stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env)
        try:
            _, err = proc.communicate(pickle.dumps(job), timeout=seconds + warmup_s + _CHILD_EXTRA_S)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        if proc.returncode != 0 or not job.result.exists():
            tail = err.decode("utf-8", "replace").strip().splitlines()[-15:]
            raise RuntimeError(f"the measured room failed (exit {proc.returncode}):\n" + "\n".join(tail))
        return RoomCost(**json.loads(job.result.read_text()))


async def _run_room(job: Job) -> dict[str, Any]:
    from broadcaster.room import Room
    from broadcaster.stage import StageEventKind
    from broadcaster.watchdog import resident_memory_bytes

    room = Room(job.room, paced=True, state_dir=job.state_dir)
    spans: list[tuple[int, int]] = []  # (start frame, end frame) of every utterance played
    starts: dict[int, int] = {}

    def on_event(ev: Any) -> None:
        if ev.kind == StageEventKind.START and ev.utterance is not None:
            starts[id(ev.utterance)] = ev.frame
        elif ev.kind == StageEventKind.END and ev.utterance is not None:
            spans.append((starts.pop(id(ev.utterance), ev.frame), ev.frame + 1))

    room.port.subscribe(on_event)
    await room.start()
    try:
        await asyncio.sleep(job.warmup_s)
        clock = room.clock
        assert clock is not None
        f0, late0, c0, w0 = clock.frames, clock.late_frames, _cpu(), time.monotonic()
        rss = resident_memory_bytes()
        end = w0 + job.seconds
        while (left := end - time.monotonic()) > 0:
            await asyncio.sleep(min(0.5, left))
            rss = max(rss, resident_memory_bytes())
        f1, late1, c1, w1 = clock.frames, clock.late_frames, _cpu(), time.monotonic()
        if clock.error is not None:
            raise RuntimeError(f"the media clock died: {clock.error!r}")
        open_starts = [(s, f1) for s in starts.values()]
        speaking = sum(max(0, min(b, f1) - max(a, f0)) for a, b in spans + open_starts)
    finally:
        await room.stop(0.5)
    gpu, gpu_total = _gpu_memory()
    cfg = job.room
    return asdict(RoomCost(
        room=cfg.id, size=f"{cfg.video.width}x{cfg.video.height}@{cfg.video.fps}", avatar=cfg.avatar.kind,
        voice=cfg.voice.backend, seconds=round(w1 - w0, 3), frames=f1 - f0, late_frames=late1 - late0,
        speaking_share=round(speaking / max(1, f1 - f0), 4), cores=round((c1 - c0) / (w1 - w0), 4),
        rss_bytes=rss, gpu_bytes=gpu, gpu_total_bytes=gpu_total, pid=os.getpid()))


def _cpu() -> float:
    """CPU seconds of this whole process (all threads: x264, the voice, the sinks)."""
    t = os.times()
    return t.user + t.system


def _gpu_memory() -> tuple[int | None, int | None]:
    """Peak GPU memory torch allocated in this process, and the device's total; (None, None) when the room
    never put anything on a CUDA device (torch not loaded, no CUDA, or CUDA never initialised)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None, None
    try:
        if not (torch.cuda.is_available() and torch.cuda.is_initialized()):
            return None, None
        return int(torch.cuda.max_memory_allocated()), int(torch.cuda.get_device_properties(0).total_memory)
    except Exception:  # a driver gone wrong mid-run: the figure is unknown, the rest stands
        return None, None


def _child() -> int:
    from broadcaster.logs import register_secrets, setup_logging

    job: Job = pickle.loads(sys.stdin.buffer.read())  # from the parent that spawned us, over our stdin pipe
    register_secrets(job.secrets)
    setup_logging("warning", "text", stream=sys.stderr)
    result = asyncio.run(_run_room(job))
    job.result.write_text(json.dumps(result))
    return 0


# -- the report -----------------------------------------------------------------------------------------------

def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB" if n < 10 * 2**30 else f"{n / 2**30:,.1f} GiB"


_LIMITS = {"cpu": "CPU", "memory": "memory", "gpu": "GPU memory"}


def report(cost: RoomCost, host: Host, f: Fit) -> str:
    usable = f"usable at {f.headroom:.0%}"
    rows = [
        ("CPU", f"{cost.cores:.3f} cores", f"{host.cores:g} cores → {host.cores * f.headroom:.2f}", str(f.by_cpu)),
        ("memory (RSS)", _mib(cost.rss_bytes), f"{_mib(host.memory_bytes)} → {_mib(int(host.memory_bytes * f.headroom))}",
         str(f.by_memory)),
    ]
    if cost.gpu_bytes:
        total = host.gpu_memory_bytes or cost.gpu_total_bytes or 0
        rows.append(("GPU memory", _mib(cost.gpu_bytes), f"{_mib(total)} → {_mib(int(total * f.headroom))}",
                     str(f.by_gpu)))
    else:
        rows.append(("GPU memory", "none", "-", "-"))
    head = ("", "per room", f"this host ({usable})", "rooms")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    lines = [
        f"room {cost.room}: {cost.size}, {cost.avatar} avatar, {cost.voice} voice; measured {cost.seconds:.0f} s "
        f"after warm-up in process {cost.pid}",
        f"talk track speaking {cost.speaking_share:.0%} of the frames; late frames {cost.late_frames}/{cost.frames} "
        f"({cost.late_share:.2%})",
        "",
    ]
    for r in [head, *rows]:
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))))
    lines += ["", f"→ {f.rooms} room{'s' if f.rooms != 1 else ''} of this kind fit on this host; "
              f"{_LIMITS[f.limit]} is the limit "
              f"(one worker process per room, daemon.workers.mode: process)."]
    if cost.late_share > LATE_WARNING:
        lines.append(f"warning: {cost.late_share:.2%} of the frames were late while measuring: this host was busy "
                     "(or the room is too big for a core); measure again on a quiet host.")
    if cost.speaking_share < 0.3:
        lines.append("note: the talk track spoke little while measuring (no talk track?); a speaking room costs "
                     "more (AAC on speech, the voice, lip-sync).")
    return "\n".join(lines)


def to_json(cost: RoomCost, host: Host, f: Fit) -> dict[str, Any]:
    return {"room": {**asdict(cost), "late_share": cost.late_share}, "host": asdict(host), "fit": asdict(f)}


if __name__ == "__main__":
    sys.exit(_child())
