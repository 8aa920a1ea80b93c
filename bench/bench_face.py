"""Bench: the neural face's batched inference — frames/s and per-frame latency against batch size, and rooms at 25 fps.

Builds a MuseTalk-1.5-shaped model with random weights in the published layout (tiny by default;
`--full-size` for the published sizes: UNet ~0.8 G parameters, sd-vae-ft-mse, whisper-tiny), loads it
through the real loader on `--device`/`--dtype`, prepares a real photo (scikit-image's astronaut) and
times `FaceModel.run_batch` (UNet step + VAE decode + copy back to host) for each batch size, with
items from three sources-in-rooms mixed. Rooms that fit = floor(frames/s / 25) at that batch size;
a frame waits for its whole batch, so the batch time is the latency a room must ask ahead by.
Also printed: whisper features per second of audio and the room-side paste-back per frame.
On the CPU with the tiny model this shows that the pipeline and the batching work, not speed.

    .venv/bin/python bench/bench_face.py [--sizes 1,2,4,8,16,32] [--iters 3]
    .venv/bin/python bench/bench_face.py --full-size --device cuda --dtype auto --iters 10   # on a GPU
    .venv/bin/python bench/bench_face.py --full-size --sizes 1,2 --iters 1                   # CPU: slow
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from renderer.neural.infer import FaceItem, compose  # noqa: E402
from renderer.neural.loader import load_face_model  # noqa: E402
from renderer.neural.prepare import prepare  # noqa: E402
from tests.face.tinymodel import write_model  # noqa: E402

FPS = 25
RATE = 44100


def voice_like(seconds: float) -> np.ndarray:
    """Syllable-rate amplitude-modulated harmonics (voiced all through): int16 at the stage's rate."""
    t = np.arange(int(seconds * RATE)) / RATE
    env = 0.3 + 0.7 * np.abs(np.sin(2 * np.pi * 2.0 * t))
    phase = 2 * np.pi * np.cumsum(180 + 20 * np.sin(2 * np.pi * 0.5 * t)) / RATE
    sig = sum(np.sin(k * phase) / k for k in range(1, 8))
    return (0.25 * env * sig * 32767).astype(np.int16)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--full-size", action="store_true", help="published sizes (random weights) instead of tiny"
    )
    ap.add_argument("--model-dir", type=Path, help="an existing model folder in the published layout")
    ap.add_argument("--device", default="auto", help="auto | cpu | cuda | cuda:N")
    ap.add_argument("--dtype", default="auto", choices=["auto", "float32", "float16", "bfloat16"])
    ap.add_argument("--sizes", default="1,2,4,8,12,16,24,32", help="batch sizes, comma-separated (1..256)")
    ap.add_argument("--iters", type=int, default=3, help="timed runs per batch size (after one warm-up)")
    ap.add_argument(
        "--threads", type=int, default=1, help="torch CPU threads (CPU runs; 1 = a per-core figure)"
    )
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for noisy in ("transformers", "diffusers", "httpx"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    sizes = [int(s) for s in args.sizes.split(",")]

    import torch

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.model_dir
        if folder is None:
            t0 = time.perf_counter()
            folder = write_model(Path(tmp) / "models", full_size=args.full_size)
            print(
                f"model written ({'full-size' if args.full_size else 'tiny'}): {time.perf_counter() - t0:.1f} s"
            )
        t0 = time.perf_counter()
        model = load_face_model(folder, args.device, args.dtype, max_batch=max(sizes))
        unet_params = sum(p.numel() for p in model.unet.parameters()) / 1e6
        print(
            f"loaded on {model.device} as {str(model.dtype).removeprefix('torch.')} in "
            f"{time.perf_counter() - t0:.1f} s: UNet {unet_params:.1f} M params, "
            f"VAE {sum(p.numel() for p in model.vae.parameters()) / 1e6:.1f} M, "
            f"whisper encoder {sum(p.numel() for p in model.whisper.parameters()) / 1e6:.1f} M, "
            f"{model.tokens} audio tokens x {model.d_model} per frame; torch threads {torch.get_num_threads()}"
        )
        import skimage.data

        photo = Path(tmp) / "astronaut.png"
        cv2.imwrite(str(photo), cv2.cvtColor(skimage.data.astronaut(), cv2.COLOR_RGB2BGR))
        t0 = time.perf_counter()
        src = prepare(photo, Path(tmp) / "state", model)
        print(f"prepare (landmarks, box, mask, reference latents): {time.perf_counter() - t0:.2f} s")
        # Three "rooms": the same prepared source registered under three keys, as three rooms' sources would be.
        keys = [src.key] + [f"room{r}" for r in (2, 3)]
        for k in keys[1:]:
            model.register(k, src.latents)

        pcm = voice_like(4.0)
        model.audio_features(pcm, RATE, FPS)  # warm-up
        t0 = time.perf_counter()
        feats = model.audio_features(pcm, RATE, FPS)
        whisper_s = time.perf_counter() - t0
        print(f"whisper features: {whisper_s * 1000:.0f} ms for 4 s of audio ({len(feats)} frames)")

        print()
        # Wall time is the best of the runs (other processes only ever add to it); CPU time is this
        # process's, summed over its threads: on a shared machine the steadier figure of the two.
        print(
            f"{'batch':>5} {'batch ms':>9} {'ms/frame':>9} {'cpu ms/fr':>9} {'frames/s':>9} {'rooms@25fps':>11}  gpu MiB"
        )
        best = (0.0, 0)
        for b in sizes:
            model.max_batch = b
            items = [FaceItem(keys[i % 3], 0, feats.windows[i % len(feats)]) for i in range(b)]
            if model.device != "cpu":
                torch.cuda.reset_peak_memory_stats(model.device)
            model.run_batch(items)  # warm-up (and cuDNN's algorithm choice)
            times, cpu = [], []
            for _ in range(args.iters):
                t0, c0 = time.perf_counter(), time.process_time()
                crops = model.run_batch(items)
                times.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            assert len(crops) == b
            t = min(times)
            fps = b / t
            rooms = int(fps // FPS)
            mem = torch.cuda.max_memory_allocated(model.device) / 2**20 if model.device != "cpu" else 0.0
            cpu_ms = statistics.median(cpu) * 1000 / b
            print(
                f"{b:>5} {t * 1000:>9.1f} {t * 1000 / b:>9.2f} {cpu_ms:>9.2f} {fps:>9.1f} {rooms:>11}  {mem:>7.0f}"
            )
            best = max(best, (fps, b))

        frame = src.source.frames[0].copy()
        crop = crops[0]
        t0 = time.perf_counter()
        for _ in range(50):
            compose(frame, crop, src.geometry.box(0), src.geometry.masks[0])
        print(f"\npaste-back (room side, CPU): {(time.perf_counter() - t0) / 50 * 1000:.2f} ms/frame")
        print(f"best: {best[0]:.1f} frames/s at batch {best[1]} -> {int(best[0] // FPS)} rooms at {FPS} fps")


if __name__ == "__main__":
    main()
