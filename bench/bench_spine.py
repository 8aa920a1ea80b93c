"""Spine throughput and CPU: the room's media path (stage → avatar → encoder → sink) against PyAV encoding alone.

    .venv/bin/python bench/bench_spine.py                 # 1280x720@25, unpaced speed and paced CPU
    .venv/bin/python bench/bench_spine.py --hour          # + one hour of output unpaced: final A/V end offset

Both sides see the same media: a 3 s sentence (moving mouth, subtitle, banner, voiced-like PCM) starting every
4 s on a frame boundary, idle (silence, idle motion) between. The baseline renders that schedule's frames once,
ahead, and then only encodes them (Encoder.encode: colour conversion, x264, AAC) — what "PyAV encoding the same
frames alone" costs. Silent audio would not do: AAC on speech costs about 1 ms per frame more than on zeros.

Figures: seconds of output per wall second (unpaced), CPU share of one core (paced, real time, the whole
process: clock, render, encode, sink thread, everything), each beside the baseline, and their ratio; where the
room's CPU went (clock thread, sink thread, the rest).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from broadcaster.clock import MediaClock
from broadcaster.config import AudioConfig, RecordOutput, VideoConfig
from broadcaster.lines import Line, LineSource, Utterance
from broadcaster.output.encoder import Encoder
from broadcaster.output.sinks import RecordSink
from broadcaster.stage import Stage
from renderer.base import FrameState, MouthTrack
from renderer.card import Card
from renderer.config import AvatarConfig
from renderer.factory import build_avatar

CYCLE_S = 4  # a sentence starts every CYCLE_S seconds
SPEECH_S = 3.0


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def thread_cpu(native_id: int | None) -> float:
    """CPU seconds one thread of this process has used (Linux /proc); 0 when unknown."""
    try:
        with open(f"/proc/self/task/{native_id}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def speech(seconds: float, rate: int, fps: int) -> Utterance:
    """A voiced-like test signal (pulses through a formant-ish filter) with a moving mouth."""
    n = int(seconds * rate)
    t = np.arange(n) / rate
    env = 0.5 * (1 + np.sin(2 * np.pi * 3 * t))
    pcm = (0.3 * env * np.sin(2 * np.pi * 220 * t) * np.sin(2 * np.pi * 700 * t)).astype(np.float32)
    frames = -(-n // (rate // fps))
    openness = np.clip(np.interp(np.arange(frames), np.arange(frames), env[:: rate // fps][:frames]), 0, 1)
    track = MouthTrack(openness.astype(np.float32), np.ones(frames, np.uint8))
    return Utterance(pcm=pcm, mouth=track, text="性能测试：字幕也要渲染。", line=Line("bench", LineSource.SCRIPT,
                                                                              banner="@观众: 这个多少钱？"))


class TimedEncoder(Encoder):
    """The encoder, counting the CPU time its calls take on the calling thread (the same on both sides)."""

    def __init__(self, video: VideoConfig, audio: AudioConfig):
        super().__init__(video, audio)
        self.cpu = 0.0

    def encode(self, n: int, image_bgr: np.ndarray, pcm: np.ndarray) -> list:
        t = time.thread_time()
        try:
            return super().encode(n, image_bgr, pcm)
        finally:
            self.cpu += time.thread_time() - t


class ScheduledStage(Stage):
    """The stage with the bench's content schedule: a sentence queued on every CYCLE_S-th second's first frame
    (frame-exact, so the room and the baseline show the same thing)."""

    def __init__(self, fps: int, sample_rate: int):
        super().__init__(fps, sample_rate)
        self._utterance = speech(SPEECH_S, sample_rate, fps)
        self._period = CYCLE_S * fps

    def tick(self, n: int) -> tuple[FrameState, np.ndarray]:
        if n % self._period == 0:
            u = self._utterance
            self.push(Utterance(pcm=u.pcm, mouth=u.mouth, text=u.text,
                                line=Line("bench", LineSource.SCRIPT, banner=u.line.banner)))
        return super().tick(n)


def run_room(seconds: float, paced: bool, video: VideoConfig, audio: AudioConfig, out: Path,
             card: Card | None = None) -> dict:
    avatar = build_avatar(AvatarConfig(), video.width, video.height, video.fps)
    stage = ScheduledStage(video.fps, audio.sample_rate)
    if card is not None:  # bench_card.py: the same room with a product card on screen (composed ahead, as on air)
        avatar.prepare_card(card)
        stage.show_card(card)
    encoder = TimedEncoder(video, audio)
    sink = RecordSink("bench", RecordOutput(type="record", path=out), encoder, 0)
    clock = MediaClock("bench", stage, avatar, encoder, [sink], paced=paced)
    frames_target = int(seconds * video.fps)
    sink.start()
    c0, w0 = cpu_seconds(), time.monotonic()
    clock.start()
    clock_t0, sink_t0 = thread_cpu(clock._thread.native_id), thread_cpu(sink._thread.native_id)
    enc_t0 = encoder.cpu
    while clock.frames < frames_target:
        time.sleep(0.2)  # a slow poll: this thread's wake-ups are counted in the room's CPU too
    clock_cpu = thread_cpu(clock._thread.native_id) - clock_t0
    enc_cpu = encoder.cpu - enc_t0
    sink_cpu = thread_cpu(sink._thread.native_id) - sink_t0
    clock.stop()
    clock.join()
    wall, cpu = time.monotonic() - w0, cpu_seconds() - c0
    sink.close()
    return {"frames": clock.frames, "late": clock.late_frames, "wall": wall, "cpu": cpu,
            "clock_cpu": clock_cpu, "sink_cpu": sink_cpu, "encode_cpu": enc_cpu,
            "audio_end": encoder.audio_samples / audio.sample_rate, "video_end": clock.frames / video.fps,
            "composed": avatar.overlays.card.composed if avatar.overlays.card is not None else 0}


def run_encode_only(seconds: float, paced: bool, video: VideoConfig, audio: AudioConfig) -> dict:
    """Encodes the schedule's frames and audio, rendered beforehand (one cycle, repeated)."""
    avatar = build_avatar(AvatarConfig(), video.width, video.height, video.fps)
    stage = ScheduledStage(video.fps, audio.sample_rate)
    media = []
    for n in range(CYCLE_S * video.fps):
        state, pcm = stage.tick(n)
        media.append((avatar.render(state), pcm.copy()))
    encoder = TimedEncoder(video, audio)
    n_total = int(seconds * video.fps)
    c0, w0 = cpu_seconds(), time.monotonic()
    for n in range(n_total):
        frame, pcm = media[n % len(media)]
        encoder.encode(n, frame, pcm)
        if paced:
            delay = w0 + (n + 1) / video.fps - time.monotonic()
            if delay > 0:
                time.sleep(delay)
    encoder.flush()
    return {"frames": n_total, "wall": time.monotonic() - w0, "cpu": cpu_seconds() - c0}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--preset", default="veryfast")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--repeat", type=int, default=1, help="paced pairs to run (the figures of each, then the median)")
    ap.add_argument("--hour", action="store_true", help="also render one hour unpaced (small canvas) for A/V offset")
    args = ap.parse_args()
    video = VideoConfig(width=args.width, height=args.height, fps=25, preset=args.preset)
    audio = AudioConfig()
    tmp = Path(tempfile.mkdtemp())
    print(f"# {args.width}x{args.height}@25, x264 {video.preset} threads={video.threads}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}")

    base = run_encode_only(args.seconds, False, video, audio)
    room = run_room(args.seconds, False, video, audio, tmp / "unpaced.flv")
    b_speed = base["frames"] / 25 / base["wall"]
    r_speed = room["frames"] / 25 / room["wall"]
    print(f"unpaced  encode-only: {b_speed:6.2f} s of output per s   room: {r_speed:6.2f}   ratio room/encode "
          f"{r_speed / b_speed:.2f}")
    print(f"         per frame: encode-only {1000 * base['wall'] / base['frames']:.1f} ms, "
          f"room {1000 * room['wall'] / room['frames']:.1f} ms")

    ratios, inner = [], []
    for i in range(args.repeat):
        # Alternate which goes first, so a neighbour's burst does not always land on the same side.
        if i % 2:
            room_p = run_room(args.seconds, True, video, audio, tmp / f"paced{i}.flv")
            base_p = run_encode_only(args.seconds, True, video, audio)
        else:
            base_p = run_encode_only(args.seconds, True, video, audio)
            room_p = run_room(args.seconds, True, video, audio, tmp / f"paced{i}.flv")
        b_cpu = 100 * base_p["cpu"] / base_p["wall"]
        r_cpu = 100 * room_p["cpu"] / room_p["wall"]
        ratios.append(r_cpu / b_cpu)
        # The same question inside the room's own run: everything / its Encoder.encode calls. Both halves see
        # the same neighbours at the same moment, so this moves far less on a shared host (the encode in the
        # room may pay for render's cache misses, which flatters it a little).
        inner.append(room_p["cpu"] / room_p["encode_cpu"])
        rest = room_p["cpu"] - room_p["clock_cpu"] - room_p["sink_cpu"]
        print(f"paced    encode-only CPU: {b_cpu:5.1f}% of one core   room CPU: {r_cpu:5.1f}%   "
              f"ratio {r_cpu / b_cpu:.2f}   late frames {room_p['late']}/{room_p['frames']}   budget 40%")
        print(f"         room CPU by thread: clock {100 * room_p['clock_cpu'] / room_p['wall']:.1f}%, "
              f"sink {100 * room_p['sink_cpu'] / room_p['wall']:.1f}%, rest {100 * rest / room_p['wall']:.1f}%; "
              f"its Encoder.encode {100 * room_p['encode_cpu'] / room_p['wall']:.1f}% (room/encode {inner[-1]:.2f})")
        print(f"         A/V end offset after {room_p['video_end']:.0f}s: "
              f"{1000 * (room_p['audio_end'] - room_p['video_end']):+.1f} ms")
    if args.repeat > 1:
        print(f"paced    ratio room/encode-only: median {float(np.median(ratios)):.2f} "
              f"(runs: {', '.join(f'{r:.2f}' for r in ratios)})   goal ≤ 1.15; within the room's run: median "
              f"{float(np.median(inner)):.2f} (runs: {', '.join(f'{r:.2f}' for r in inner)})")

    if args.hour:
        small = VideoConfig(width=320, height=180, fps=25, bitrate_kbps=300)
        hour = run_room(3600, False, small, audio, tmp / "hour.flv")
        from tests.support.media import probe

        p = probe(str(tmp / "hour.flv"), decode_video=False)
        v_end = p.video.packets[-1][0] + 1 / 25
        a_end = p.audio.packets[-1][0] + p.audio.packets[-1][3]
        print(f"one hour unpaced (320x180): {hour['frames']} frames in {hour['wall']:.0f}s wall; "
              f"clock A/V end offset {1000 * (hour['audio_end'] - hour['video_end']):+.1f} ms; "
              f"in the file: audio end - video end = {1000 * (a_end - v_end):+.1f} ms (one frame = 40 ms)")


if __name__ == "__main__":
    main()
