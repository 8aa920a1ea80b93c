"""Soak: a real daemon for N minutes under live chat, periodic reloads and an ingest that keeps restarting.

    .venv/bin/python bench/soak.py --minutes 30            # the issue's soak
    .venv/bin/python bench/soak.py --minutes 3 --reload-every 30 --ingest-every 60   # a quick look

One room (the demo product, 320x180@25, espeak, talk track, KB) run as `virtual-anchor run`, recording to a
file and pushing RTMP to FFmpeg's listener. Along the way:

  chat     a replayed chat of many different viewers and questions, looping: every pass gets fresh
           message ids (the replay source's <id>~<run>.<pass>), so the director sees new comments all along
  reloads  every --reload-every seconds the config file changes and the daemon gets SIGHUP, in a cycle:
           content changes that must apply live (moderation words, talk track, knowledge base, persona,
           voice),
           a file with a missing words file that must be refused, and a portrait that is no image, whose
           media change must not apply (the room stays on air on its old config)
  ingest   every --ingest-every seconds the RTMP listener is killed and a new one started on the same port

Reported at the end (and written as JSON next to the recordings):
  memory   the daemon's resident memory sampled every 10 s; after the warm-up, first/last/min/max and the
           least-squares slope (MB per hour). Flat = slope within ±--flat-mb-per-hour. The utterance cache
           (--voice-cache-mb, 8 by default) is kept small so that it is full within the warm-up
  gaps     every timestamp gap in the recording and in each ingest's copy (video > 1 frame, audio > 1 AAC
           frame, DTS going back) and keyframe spacing other than 2 s
  answers  answers to chat (audit lines from cache, kb, llm or fallback) per minute; minutes without one
  reloads  each reload: what it was, what was intended (applied live / refused / not applied), what happened
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import av

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.chaos.chaos_support import DEMO, STREAM_KEY, Daemon, config, free_port, recordings, room  # noqa: E402
from tests.support.servers import FfmpegIngest, wait_until  # noqa: E402

FPS = 25
MS = 0.0015

QUESTIONS = [
    "这个杯子多少钱？", "有什么颜色？", "能保温多久？", "容量多大？", "包邮吗？", "什么时候发货？", "可以退货吗？",
    "内胆是什么材质？", "能装碳酸饮料吗？", "可以放冰块吗？", "适合小孩用吗？", "有没有赠品？", "重不重？",
    "盖子漏不漏水？", "能进洗碗机吗？", "保修多久？", "今晚有优惠吗？", "和上次那款有什么区别？",
    "能刻字吗？", "一次买两个便宜吗？",
]
OPENERS = ["", "主播", "请问", "想问下", "姐妹们问一下", "主播主播，"]
ENDINGS = ["", "～", "！", "呀", "哈哈"]


def write_chat(path: Path, seconds: float = 600.0, every_s: float = 2.0, seed: int = 7) -> int:
    """A replay file of many viewers asking varied questions (and some gifts), spread over `seconds`."""
    rng = random.Random(seed)
    lines = []
    for i in range(int(seconds / every_s)):
        t = round(i * every_s, 2)
        user = {"id": f"v{i}", "name": f"观众{i % 97}"}
        if i % 17 == 5:
            lines.append({"t": t, "kind": "gift", "user": user, "msg_id": f"g{i}", "value_milli": 1000,
                          "extra": {"gift_name": "小心心", "count": 1}})
            continue
        text = rng.choice(OPENERS) + rng.choice(QUESTIONS) + rng.choice(ENDINGS)
        lines.append({"t": t, "kind": "comment", "user": user, "text": text, "msg_id": f"c{i}"})
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return len(lines)


@dataclass
class Reload:
    at_s: float
    what: str
    intended: str  # "applied live" | "refused" | "not applied"
    observed: str = ""
    ok: bool = False


@dataclass
class Report:
    minutes: float
    memory: dict[str, Any] = field(default_factory=dict)
    gaps: dict[str, list[str]] = field(default_factory=dict)
    answers_per_minute: list[int] = field(default_factory=list)
    reloads: list[Reload] = field(default_factory=list)
    ingests: list[dict[str, Any]] = field(default_factory=list)
    not_ready_samples: int = 0
    verdicts: dict[str, bool] = field(default_factory=dict)


def rss_mb(pid: int) -> float | None:
    """Resident memory of the daemon and every process under it (its room workers, services), in MB."""
    try:
        total = 0
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    except OSError:
        return None
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        total += int(sum(rss_mb(int(c)) or 0.0 for c in children) * 1024)
    return total / 1024


def slope_per_hour(samples: list[tuple[float, float]]) -> float:
    n = len(samples)
    if n < 2:
        return 0.0
    mt = sum(t for t, _ in samples) / n
    mv = sum(v for _, v in samples) / n
    den = sum((t - mt) ** 2 for t, _ in samples)
    return 0.0 if den == 0 else sum((t - mt) * (v - mv) for t, v in samples) / den * 3600


def gaps_of(path: Path) -> tuple[float, list[str]]:
    """(video seconds, problems) of one file, demuxed only (a 30-minute file would not fit decoded)."""
    problems: list[str] = []
    try:
        container = av.open(str(path))
    except av.FFmpegError as exc:
        return 0.0, [f"cannot open: {exc}"]
    times: dict[str, list[tuple[float, float, bool]]] = {"video": [], "audio": []}
    rate = 44100
    try:
        for packet in container.demux():
            if packet.dts is None:
                continue
            tb = packet.time_base
            kind = packet.stream.type
            if kind == "audio":
                rate = packet.stream.codec_context.sample_rate or rate
            if kind in times:
                times[kind].append((float(packet.pts * tb), float(packet.dts * tb), bool(packet.is_keyframe)))
    except av.FFmpegError as exc:  # a killed ingest's file may end mid-packet: what came before counts
        problems.append(f"read stopped: {exc}") if "End of file" not in str(exc) else None
    finally:
        container.close()
    for kind, step in (("video", 1 / FPS), ("audio", 1024 / rate)):
        pk = times[kind]
        back = sum(1 for a, b in itertools.pairwise(pk) if b[1] < a[1])
        if back:
            problems.append(f"{kind}: DTS goes back {back} times")
        key = 0 if kind == "audio" else 1
        seq = [p[key] for p in pk]
        for a, b in itertools.pairwise(seq):
            if b - a > step + MS:
                problems.append(f"{kind} gap of {b - a:.3f}s at {a:.3f}s")
    keys = [p[0] for p in times["video"] if p[2]]
    odd = [(a, b - a) for a, b in itertools.pairwise(keys) if abs(b - a - 2.0) > MS]
    problems += [f"keyframe interval {d:.3f}s at {a:.3f}s" for a, d in odd[:10]]
    video = times["video"]
    return (video[-1][0] - video[0][0] + 1 / FPS) if video else 0.0, problems[:50]


def soak(args: argparse.Namespace) -> Report:
    tmp = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="va-soak-"))
    tmp.mkdir(parents=True, exist_ok=True)
    chat = tmp / "chat.jsonl"
    write_chat(chat)
    # Content the reloads alternate between.
    for i, extra in enumerate(["", "- name: soak\n    lines:\n      - 这是第二版话术，欢迎新朋友。\n"]):
        text = (DEMO / "talk.yaml").read_text(encoding="utf-8")
        (tmp / f"talk{i}.yaml").write_text(text + ("  " + extra if extra else ""), encoding="utf-8")
    for i, words in enumerate(["坏词一\n", "坏词一\n坏词二\n"]):
        (tmp / f"words{i}.txt").write_text(words, encoding="utf-8")
    for i in range(2):
        kb = tmp / f"kb{i}"
        shutil.rmtree(kb, ignore_errors=True)
        shutil.copytree(DEMO / "kb", kb)
        if i:
            (kb / "soak.md").write_text("# 售后\n\n杯子有一年保修，保修期内免费换新。\n", encoding="utf-8")
    (tmp / "face.jpg").write_bytes(b"this is not an image")

    port, admin = free_port(), free_port()
    # Which variant of each content piece runs now; a content reload moves one piece to its other variant.
    state = {"words": 0, "talk": 0, "kb": 0, "persona": 0, "voice": 0}

    def room_cfg(st: dict[str, int], **over: Any) -> dict[str, Any]:
        base = room(tmp, rtmp_port=port,
                    sources=[{"type": "replay", "path": str(chat), "loop": True}],
                    director={"talk": {"file": str(tmp / f"talk{st['talk']}.yaml")}},
                    moderation={"words_file": str(tmp / f"words{st['words']}.txt")},
                    brain={"kb": {"dir": str(tmp / f"kb{st['kb']}")}, "persona": {"name": ["小安", "小新"][st["persona"]]}},
                    # The utterance cache's memory budget: small, so it is full early and what grows after the
                    # warm-up is not a cache filling up by design.
                    voice={"rate_wpm": [175, 185][st["voice"]], "cache": {"memory_mb": args.voice_cache_mb}})
        base.update(over)
        return base

    report = Report(minutes=args.minutes)
    ingest_n = 0
    ingest = FfmpegIngest(port, tmp / f"ingest{ingest_n}.flv", key=STREAM_KEY).start()
    d = Daemon(tmp, config(tmp, [room_cfg(state)], port=admin)).start()
    if not wait_until(d.ready, 120, interval=0.5):
        d.kill()
        raise SystemExit(f"the daemon did not come on air:\n{d.logs()[-3000:]}")
    ingest.wait_publisher(30)
    t0 = time.monotonic()
    wall0 = time.time()
    end = t0 + args.minutes * 60
    samples: list[tuple[float, float]] = []
    cycle = itertools.cycle(["words", "talk", "bad words file", "kb", "portrait", "persona", "voice"])
    next_sample, next_reload, next_ingest = t0, t0 + args.reload_every, t0 + args.ingest_every
    print(f"soak: {args.minutes} min in {tmp}; daemon pid {d.proc.pid if d.proc else '?'}", flush=True)
    try:
        while (now := time.monotonic()) < end:
            if now >= next_sample:
                mb = rss_mb(d.proc.pid) if d.proc else None
                if mb is not None:
                    samples.append((now - t0, mb))
                if not d.ready():
                    report.not_ready_samples += 1
                next_sample += 10
            if now >= next_reload:
                what = next(cycle)
                if what == "bad words file":
                    cfg, intended = room_cfg(state, moderation={"words_file": str(tmp / "missing.txt")}), "refused"
                elif what == "portrait":
                    cfg = room_cfg(state, avatar={"kind": "portrait", "path": str(tmp / "face.jpg")})
                    intended = "not applied"
                else:
                    nxt = {**state, what: 1 - state[what]}
                    cfg, intended = room_cfg(nxt), "applied live"
                result = _reload(d, config(tmp, [cfg], port=admin), what, intended, now - t0)
                report.reloads.append(result)
                if intended == "applied live" and result.ok:
                    state = nxt
                elif intended != "applied live":  # the file back to what runs, so the next change is one piece
                    d.write(config(tmp, [room_cfg(state)], port=admin))
                print(f"  {now - t0:6.0f}s reload {what}: intended {report.reloads[-1].intended}, "
                      f"observed {report.reloads[-1].observed}", flush=True)
                next_reload += args.reload_every
            if now >= next_ingest:
                ingest.kill()
                ingest_n += 1
                ingest = FfmpegIngest(port, tmp / f"ingest{ingest_n}.flv", key=STREAM_KEY).start()
                t = time.monotonic()
                ok = ingest.wait_publisher(30)
                report.ingests.append({"n": ingest_n, "at_s": round(t - t0), "republished_in_s":
                                       round(time.monotonic() - t, 2) if ok else None})
                print(f"  {now - t0:6.0f}s ingest restarted: publisher back in "
                      f"{report.ingests[-1]['republished_in_s']}s", flush=True)
                next_ingest += args.ingest_every
            time.sleep(0.5)
    finally:
        code = d.stop(30)
        ingest.finish(20)
        ingest.kill()
    logs = d.logs()
    report.verdicts["clean exit"] = code == 0

    warm = [s for s in samples if s[0] >= args.warmup_s]
    if warm:
        values = [v for _, v in warm]
        slope = slope_per_hour(warm)
        report.memory = {"samples": len(samples), "after_warmup_s": args.warmup_s, "first_mb": round(values[0], 1),
                         "last_mb": round(values[-1], 1), "min_mb": round(min(values), 1),
                         "max_mb": round(max(values), 1), "slope_mb_per_hour": round(slope, 1),
                         "series_mb": [[round(t), round(v, 1)] for t, v in samples]}
        report.verdicts["memory flat"] = abs(slope) <= args.flat_mb_per_hour
    for f in [*recordings(tmp), *sorted(tmp.glob("ingest*.flv"))]:
        seconds, problems = gaps_of(f)
        report.gaps[f"{f.name} ({seconds:.0f}s)"] = problems
    report.verdicts["no timestamp gaps"] = not any(report.gaps.values())

    buckets = [0] * max(1, int(args.minutes))
    audit = tmp / "audit-r.jsonl"
    for line in audit.read_text(encoding="utf-8").splitlines() if audit.exists() else []:
        rec = json.loads(line)
        if rec.get("line_source") == "answer" and rec.get("time"):
            minute = int((_epoch(rec["time"]) - wall0) // 60)
            if 0 <= minute < len(buckets):
                buckets[minute] += 1
    report.answers_per_minute = buckets
    report.verdicts["answers every minute"] = all(buckets[1:]) if len(buckets) > 1 else bool(buckets[0])
    report.verdicts["every reload as intended"] = all(r.ok for r in report.reloads)
    report.verdicts["on air throughout"] = report.not_ready_samples == 0
    report.verdicts["no secret in logs"] = STREAM_KEY not in logs
    (tmp / "soak-report.json").write_text(json.dumps(asdict(report), ensure_ascii=False, indent=2), encoding="utf-8")
    return report


def _epoch(ts: Any) -> float:
    if isinstance(ts, int | float):
        return float(ts)
    from datetime import datetime

    return datetime.fromisoformat(str(ts).replace("Z", "+00:00")).timestamp()


def _reload(d: Daemon, cfg: dict[str, Any], what: str, intended: str, at: float) -> Reload:
    """Writes the config and sends SIGHUP; waits for the daemon's word on what became of it."""
    mark = len(d.logs())
    d.write(cfg)
    d.sighup()
    seen = ""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not seen:
        tail = d.logs()[mark:]
        for pattern, label in (("applied live r", "applied live"), ("reload refused", "refused"),
                               ("NOT applied", "not applied"), ("handed over r", "handed over (cut)")):
            if pattern in tail:
                seen = label
                break
        time.sleep(0.3)
    observed = seen or "no word within 90 s"
    return Reload(round(at), what, intended, observed, ok=observed == intended)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--reload-every", type=float, default=60.0, help="seconds between reloads")
    parser.add_argument("--ingest-every", type=float, default=180.0, help="seconds between ingest restarts")
    parser.add_argument("--warmup-s", type=float, default=None, help="memory warm-up (default: 20%%, ≥ 60 s)")
    parser.add_argument("--flat-mb-per-hour", type=float, default=20.0)
    parser.add_argument("--voice-cache-mb", type=int, default=8, help="the room's utterance cache memory budget")
    parser.add_argument("--out", default=None, help="folder for recordings, logs and the report (default: a temp dir)")
    args = parser.parse_args()
    if args.warmup_s is None:
        args.warmup_s = max(60.0, args.minutes * 60 * 0.2)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    report = soak(args)
    print("\n== soak report ==")
    print(f"minutes: {report.minutes}")
    shown = {k: v for k, v in report.memory.items() if k != "series_mb"}
    print(f"memory of the daemon and its workers (after {args.warmup_s:.0f}s warm-up): {shown}")
    print(f"answers per minute: {report.answers_per_minute}")
    print("reloads:")
    for r in report.reloads:
        print(f"  {r.at_s:5d}s {r.what:15s} intended {r.intended:13s} observed {r.observed:18s} {'ok' if r.ok else 'WRONG'}")
    print(f"ingest restarts: {report.ingests}")
    print("gaps:")
    for name, problems in report.gaps.items():
        print(f"  {name}: {'none' if not problems else '; '.join(problems[:5])}")
    print(f"not-ready samples: {report.not_ready_samples}")
    for name, ok in report.verdicts.items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    return 0 if all(report.verdicts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
