"""A talk track that never sounds like a replay, measured.

    .venv/bin/python bench/bench_talk.py                      # an hour of the demo, and both recordings
    .venv/bin/python bench/bench_talk.py --minutes 10 --pauses-s 0 --breath-s 60

1. repeats  An hour of the demo room, unpaced: its director, brain and audit log on a simulated clock
            (tests/director/talk_run.py), read back from the audit log with slot values masked. Every talk,
            thanks and reply sentence said again within --window-s is listed; the goal is none.
2. pauses   The demo's talk track in a real room (espeak, 320x180, no chat: only talk), recorded to FLV for
            --pauses-s seconds of air; the pauses between lines are read off the recording's audio (silence
            ≥ --join-s between speech). Their spread, against the same room with a fixed director.talk.gap_s.
3. breath   The built-in avatar idle at 1280x720 (no sway, so only breathing moves the body), encoded to H.264
            and decoded again; each breath is read off the decoded frames (the outfit's vertical centre of mass,
            rising through its running mean). Their spread, against breath_jitter 0 in the same run.

Prints the figures and writes them as JSON (--out). Outside the suite: the suite runs five minutes of part 1
(tests/director/test_talk_demo.py) and the pure-function checks of parts 2 and 3.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "director"))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT))


def spread(values: list[float]) -> dict[str, Any]:
    values = [float(v) for v in values]
    if not values:
        return {"n": 0}
    return {"n": len(values), "min": round(min(values), 3), "max": round(max(values), 3),
            "mean": round(statistics.fmean(values), 3), "stdev": round(statistics.pstdev(values), 3),
            "distinct_at_40ms": len({round(v / 0.04) for v in values})}


async def repeats(minutes: float, window_s: float, out: Path, seed: int) -> dict[str, Any]:
    from talk_run import masker_for, read_back, run_demo

    t0 = time.perf_counter()
    run = await run_demo(minutes, out, seed=seed)
    wall = time.perf_counter() - t0
    back = read_back(run.audit, masker_for(run), window_s)
    talk = run.director.talk
    return {"simulated_s": round(run.seconds), "wall_s": round(wall, 1), "lines_by_source": dict(run.lines),
            "audit": str(run.audit), **back.summary(),
            "room_counted": talk.snapshot(run.seconds) if talk is not None else None}


async def _record_room(seconds: float, out: Path, gap: dict[str, Any]) -> Path:
    from broadcaster.config import RoomConfig
    from broadcaster.demo import DEMO_DIR
    from broadcaster.room import Room

    path = out / f"pauses-{'fixed' if 'gap_s' in gap else 'varied'}.flv"
    cfg = RoomConfig.model_validate({
        "id": "pauses", "video": {"width": 320, "height": 180, "fps": 25, "bitrate_kbps": 300, "preset": "ultrafast"},
        "outputs": [{"type": "record", "path": str(path)}],
        "voice": {"backend": "espeak", "voice": "cmn"},
        "director": {"talk": {"file": str(DEMO_DIR / "talk.yaml"), **gap}},
        "brain": {"kb": {"dir": str(DEMO_DIR / "kb")}},
    })
    room = Room(cfg, paced=True, state_dir=out / "state")
    await room.start()
    try:
        await asyncio.sleep(seconds)
    finally:
        await room.stop()
    return path


def _audio(path: Path) -> tuple[np.ndarray, int]:
    import av

    chunks = []
    with av.open(str(path)) as f:
        stream = f.streams.audio[0]
        rate = stream.rate
        for frame in f.decode(stream):
            chunks.append(frame.to_ndarray().reshape(-1, frame.samples).mean(axis=0))
    return np.concatenate(chunks).astype(np.float32), rate


def pauses_of(path: Path, join_s: float) -> list[float]:
    from e2e_support import speech_segments

    pcm, rate = _audio(path)
    segs = speech_segments(pcm, rate, gap_s=join_s)
    return [(b - a) / rate for (_, a), (b, _) in itertools.pairwise(segs)]


async def pauses(seconds: float, join_s: float, out: Path) -> dict[str, Any]:
    got = {}
    for name, gap in (("varied", {}), ("fixed", {"gap_s": 1.5})):
        path = await _record_room(seconds, out, gap)
        got[name] = spread(pauses_of(path, join_s))
    return {"seconds_each": seconds, "join_s": join_s, **got}


def _breaths(jitter: float, seconds: float, out: Path) -> list[float]:
    import av

    from renderer.base import FrameState
    from renderer.config import AvatarConfig, IdleConfig
    from renderer.factory import build_avatar

    fps, w, h = 25, 1280, 720
    cfg = AvatarConfig(idle=IdleConfig(sway_px=0, sway_deg=0, breath_jitter=jitter))
    avatar = build_avatar(cfg, w, h, fps)
    path = out / f"breath-{jitter}.mp4"
    with av.open(str(path), "w") as f:
        s = f.add_stream("libx264", rate=fps)
        s.width, s.height, s.pix_fmt = w, h, "yuv420p"
        s.options = {"preset": "ultrafast", "crf": "18"}
        for n in range(int(seconds * fps)):
            frame = av.VideoFrame.from_ndarray(avatar.render(FrameState(n, fps)), format="bgr24")
            for pkt in s.encode(frame):
                f.mux(pkt)
        for pkt in s.encode():
            f.mux(pkt)
    outfit = np.array([0xD5, 0x7B, 0x5B], np.float32)  # the built-in style's outfit, BGR
    rows = np.arange(h, dtype=np.float32)[:, None]
    ys = []
    with av.open(str(path)) as f:
        for frame in f.decode(f.streams.video[0]):
            img = frame.to_ndarray(format="bgr24").astype(np.float32)
            weight = np.clip(1 - np.linalg.norm(img - outfit, axis=2) / 60, 0, 1)
            ys.append(float((weight * rows).sum() / max(weight.sum(), 1e-6)))
    # The body's height less its 10 s average, smoothed over half a second: a breath starts where it rises
    # through zero (interpolated between frames); the edges, where the average is one-sided, are left out.
    y = np.array(ys)
    trend = np.convolve(y, np.ones(10 * fps) / (10 * fps), mode="same")
    z = np.convolve(y - trend, np.ones(13) / 13, mode="same")[5 * fps : -5 * fps]
    rising = [i + z[i] / (z[i] - z[i + 1]) for i in range(len(z) - 1) if z[i] < 0 <= z[i + 1]]
    starts = [b for a, b in itertools.pairwise([-1e9, *rising]) if b - a > fps]  # a wobble at a crossing: once
    return [(b - a) / fps for a, b in itertools.pairwise(starts)]


def breath(seconds: float, out: Path) -> dict[str, Any]:
    return {"seconds_each": seconds, "jitter_0.2": spread(_breaths(0.2, seconds, out)),
            "jitter_0": spread(_breaths(0.0, seconds, out))}


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=60.0, help="simulated minutes of the demo (0: skip)")
    ap.add_argument("--window-s", type=float, default=600.0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--pauses-s", type=float, default=150.0, help="seconds of air recorded per room (0: skip)")
    ap.add_argument("--join-s", type=float, default=0.6, help="silence shorter than this is inside a line")
    ap.add_argument("--breath-s", type=float, default=120.0, help="seconds of idle avatar per run (0: skip)")
    ap.add_argument("--out", type=Path, default=None, help="where to write bench_talk.json (default: a temp dir)")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-talk-"))
    out.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = {}
    if args.minutes > 0:
        figures["repeats"] = await repeats(args.minutes, args.window_s, out, args.seed)
        r = figures["repeats"]
        print(f"repeats: {r['simulated_s'] / 60:.0f} simulated minutes in {r['wall_s']} s: {r['lines']} talk/thanks "
              f"lines, {r['sentences']} sentences, {r['distinct_sentences']} distinct, "
              f"{r['repeats_in_window']} said again within {args.window_s:.0f} s")
        for rep in r["repeats"]:
            print(f"   again after {rep['again_after_s']} s at {rep['at_s']} s: {rep['sentence']}")
    if args.pauses_s > 0:
        figures["pauses"] = p = await pauses(args.pauses_s, args.join_s, out)
        print(f"pauses between lines (from the recordings' audio): varied {p['varied']}; fixed gap_s {p['fixed']}")
    if args.breath_s > 0:
        figures["breath"] = b = breath(args.breath_s, out)
        print(f"breaths (from the decoded video): jitter 0.2 {b['jitter_0.2']}; jitter 0 {b['jitter_0']}")
    (out / "bench_talk.json").write_text(json.dumps(figures, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"figures: {out / 'bench_talk.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
