"""What the product card costs: the room's media path (stage → avatar → encoder → sink, bench_spine.py's) with a
product card and a running countdown, against the same room without a card, in the same run.

    .venv/bin/python bench/bench_card.py                      # 1280x720@25: paced CPU pairs, then render cost
    .venv/bin/python bench/bench_card.py --repeat 7 --seconds 20 --width 720 --height 1280

Both sides see bench_spine's schedule (a 3 s sentence every 4 s, subtitle and banner, idle between); the card side
also has a card on screen from the first frame (picture, name, price, offer with its countdown, stock), whose digits
change every second. Paced runs alternate which side goes first; the figure is the median of the per-pair ratios of
process CPU (card / no card). Then both rooms on air at once (the card room's media clock thread CPU over the
other's, in the same seconds: a neighbour's burst lands on both, which alternating runs on a shared host cannot
promise). Then the render alone (the clock thread's avatar.render_next), unpaced, interleaved in
blocks: ms per frame each side, and how many card compositions happened (one per card, never per frame).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_spine import ScheduledStage, TimedEncoder, run_room, thread_cpu

from broadcaster.clock import MediaClock
from broadcaster.config import AudioConfig, RecordOutput, VideoConfig
from broadcaster.demo import DEMO_DIR
from broadcaster.output.sinks import RecordSink
from renderer.base import FrameState
from renderer.card import Card
from renderer.config import AvatarConfig
from renderer.factory import build_avatar


def demo_card(seconds_left: float) -> Card:
    """The demo cup's card with its flash offer, counting down from `seconds_left` (stage time 0)."""
    return Card("cup", "暖暖保温杯", "限时秒杀价", "149元", DEMO_DIR / "products" / "cup" / "image.png",
                offer="限时秒杀，每场限量50单", ends_at=seconds_left, stock=23)

class CardStage(ScheduledStage):
    """bench_spine's stage, with the card on screen from frame 0."""

    def __init__(self, fps: int, sample_rate: int, card: Card | None):
        super().__init__(fps, sample_rate)
        if card is not None:
            self.show_card(card)

def run_side_by_side(seconds: float, video: VideoConfig, audio: AudioConfig, out: Path, card: Card,
                     card_first: bool) -> float:
    """Both rooms on air at once, paced, in this process: the CPU of the card room's media clock thread (render +
    encode) over the no-card room's, in the same seconds (so a neighbour's burst lands on both). `card_first`:
    which room is built and started first (alternated by the caller: the two are not quite alike)."""
    rooms = []
    for i, c in enumerate((card, None) if card_first else (None, card)):
        avatar = build_avatar(AvatarConfig(), video.width, video.height, video.fps)
        if c is not None:
            avatar.prepare_card(c)
        stage = CardStage(video.fps, audio.sample_rate, c)
        encoder = TimedEncoder(video, audio)
        sink = RecordSink("bench", RecordOutput(type="record", path=out.with_suffix(f".{i}.flv")), encoder, 0)
        rooms.append((MediaClock(f"bench{i}", stage, avatar, encoder, [sink], paced=True), sink))
    for clock, sink in rooms:
        sink.start()
        clock.start()
    time.sleep(1.0)  # both warm
    t0 = [thread_cpu(clock._thread.native_id) for clock, _ in rooms]
    time.sleep(seconds)
    spent = [thread_cpu(clock._thread.native_id) - t for (clock, _), t in zip(rooms, t0, strict=True)]
    for clock, sink in rooms:
        clock.stop()
        clock.join()
        sink.close()
    return spent[0] / spent[1] if card_first else spent[1] / spent[0]


def encoded_bytes(video: VideoConfig, audio: AudioConfig, frames: int) -> dict[bool, tuple[int, int]]:
    """(keyframe bytes, other frames' bytes) of the same schedule encoded with and without the card: what the
    encoder is given to do for the card's pixels, without a clock (x264 on one thread is deterministic)."""
    from broadcaster.output.encoder import Encoder

    out = {}
    for with_card in (False, True):
        card = demo_card(3600.0) if with_card else None
        avatar = build_avatar(AvatarConfig(), video.width, video.height, video.fps)
        stage = CardStage(video.fps, audio.sample_rate, card)
        encoder = Encoder(video, audio)
        key = other = 0
        for n in range(frames):
            state, pcm = stage.tick(n)
            for pkt in encoder.encode(n, avatar.render(state), pcm):
                if pkt.video:
                    key, other = (key + len(pkt.data), other) if pkt.keyframe else (key, other + len(pkt.data))
        encoder.flush()
        out[with_card] = (key, other)
    return out


def render_cost(video: VideoConfig, frames: int, blocks: int) -> tuple[float, float, int]:
    """ms per frame of render_next without and with the card (interleaved blocks, same schedule), compositions."""
    sides = {}
    for with_card in (False, True):
        card = demo_card(3600.0) if with_card else None
        avatar = build_avatar(AvatarConfig(), video.width, video.height, video.fps)
        stage = CardStage(video.fps, 44100, card)
        states = [stage.tick(n)[0] for n in range(frames)]
        sides[with_card] = (avatar, states)
        for s in states[:50]:  # warm: caches, the card's composition
            avatar.render_next(s)
    spent = {False: 0.0, True: 0.0}
    for b in range(blocks):
        for with_card in ((False, True) if b % 2 else (True, False)):
            avatar, states = sides[with_card]
            t = time.thread_time()
            for s in states:
                avatar.render_next(FrameState(n=s.n + (b + 1) * frames, fps=s.fps, openness=s.openness,
                                              viseme=s.viseme, speaking=s.speaking, subtitle=s.subtitle,
                                              banner=s.banner, card=s.card))
            spent[with_card] += time.thread_time() - t
    n = frames * blocks
    composed = sides[True][0].overlays.card.composed if sides[True][0].overlays.card is not None else 0
    return 1000 * spent[False] / n, 1000 * spent[True] / n, composed

def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20.0, help="each paced run")
    ap.add_argument("--repeat", type=int, default=5, help="paced pairs (the figure is their median ratio)")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--render-frames", type=int, default=400, help="frames per block of the render-only part")
    ap.add_argument("--render-blocks", type=int, default=6)
    args = ap.parse_args()
    video = VideoConfig(width=args.width, height=args.height, fps=25)
    audio = AudioConfig()
    tmp = Path(tempfile.mkdtemp())
    print(f"# {args.width}x{args.height}@25, x264 {video.preset}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}")
    ratios, clock_ratios = [], []
    for i in range(args.repeat):
        card = demo_card(args.seconds + 60.0)  # the countdown runs the whole run
        order = (True, False) if i % 2 else (False, True)
        got = {}
        for with_card in order:
            got[with_card] = run_room(args.seconds, True, video, audio, tmp / f"r{i}{int(with_card)}.flv",
                                      card if with_card else None)
        base, mine = got[False], got[True]
        b_cpu, c_cpu = 100 * base["cpu"] / base["wall"], 100 * mine["cpu"] / mine["wall"]
        ratios.append(c_cpu / b_cpu)
        clock_ratios.append(mine["clock_cpu"] / base["clock_cpu"])
        print(f"pair {i + 1}: no card {b_cpu:5.1f}% of a core, card {c_cpu:5.1f}%  ratio {ratios[-1]:.3f}  "
              f"(clock thread {clock_ratios[-1]:.3f}); late frames {base['late']} / {mine['late']}; "
              f"card compositions {mine['composed']}")
    print(f"median CPU ratio card/no card over {args.repeat} alternating pairs: {statistics.median(ratios):.3f} "
          f"(clock thread alone {statistics.median(clock_ratios):.3f}); budget ≤ 1.02")
    side = [run_side_by_side(args.seconds, video, audio, tmp / f"s{i}", demo_card(args.seconds + 60.0), i % 2 == 1)
            for i in range(args.repeat)]
    # The room started first costs more here, whichever it is: each order's median, and their geometric mean.
    by_order = [statistics.median(side[j::2]) for j in (0, 1) if side[j::2]]
    print(f"side by side (both rooms on air at once, media clock thread CPU card/no card): "
          f"{' '.join(f'{r:.3f}' for r in side)}; median with the card room started second "
          f"{by_order[0]:.3f}, first {by_order[-1]:.3f}, both orders {math.prod(by_order) ** (1 / len(by_order)):.3f}")
    sizes = encoded_bytes(video, audio, 10 * video.fps)
    (k0, p0), (k1, p1) = sizes[False], sizes[True]
    print(f"encoded 10 s: keyframes {k0 / 1e3:.0f} kB without the card, {k1 / 1e3:.0f} kB with it "
          f"({100 * (k1 / k0 - 1):+.1f}%); other frames {p0 / 1e3:.0f} kB, {p1 / 1e3:.0f} kB ({100 * (p1 / p0 - 1):+.1f}%)")
    plain, card_ms, composed = render_cost(video, args.render_frames, args.render_blocks)
    print(f"render_next alone: {plain:.3f} ms/frame without a card, {card_ms:.3f} ms/frame with it "
          f"(+{card_ms - plain:.3f} ms, ratio {card_ms / plain:.3f}); {composed} composition(s) in "
          f"{args.render_frames * (args.render_blocks + 1)} frames with a running countdown")

if __name__ == "__main__":
    main()
