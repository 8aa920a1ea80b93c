"""Bench: the neural face's batched inference — frames/s and per-frame latency against batch size and dtype, rooms per GPU.

Builds a MuseTalk-1.5-shaped model with random weights in the published layout (tiny by default;
`--full-size` for the published sizes: UNet ~0.8 G parameters, sd-vae-ft-mse, whisper-tiny), loads it
through the real loader on `--device` once per dtype of `--dtypes` (default fp16 and bf16, compared in the same
run: fp16 is the default, as MuseTalk runs it), prepares a real photo (scikit-image's astronaut) and times
`FaceModel.run_batch` (UNet step + VAE decode + copy back to host) for each batch size, with items from three
sources-in-rooms mixed. Every frame of an utterance goes to the model (frames between utterances are the source's
idle loop), so a room costs 25 frames/s while it speaks: rooms that fit = floor(frames/s / (25 x speaking share)),
printed for a room that never stops (share 1) and for `--speaking` (default 0.7). A frame waits for its whole
batch, so the batch time is the latency a room must ask ahead by. Also printed: whisper features per second of
audio, the room-side paste-back per frame, and how far each dtype's crops are from the first dtype's. On the CPU
every dtype runs as fp32 (resolve_dtype): there the bench shows that the pipeline and batching work, not speed.

    .venv/bin/python bench/bench_face.py [--sizes 1,2,4,8,16,32] [--iters 3]
    .venv/bin/python bench/bench_face.py --full-size --device cuda --sizes 8,12,16,24 --iters 10   # on a GPU
    .venv/bin/python bench/bench_face.py --full-size --sizes 1,2 --iters 1                         # CPU: slow
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


def run_dtype(folder: Path, dtype: str, args: argparse.Namespace, sizes: list[int], tmp: Path) -> dict:
    """Loads the model in one dtype and times every batch size; returns its rows, crops and the prepared source."""
    import torch

    t0 = time.perf_counter()
    model = load_face_model(folder, args.device, dtype, max_batch=max(sizes))
    got = str(model.dtype).removeprefix("torch.")
    unet_params = sum(p.numel() for p in model.unet.parameters()) / 1e6
    print(
        f"\n[{dtype}] loaded on {model.device} as {got} in {time.perf_counter() - t0:.1f} s: UNet {unet_params:.1f} M "
        f"params, VAE {sum(p.numel() for p in model.vae.parameters()) / 1e6:.1f} M, whisper encoder "
        f"{sum(p.numel() for p in model.whisper.parameters()) / 1e6:.1f} M, {model.tokens} audio tokens x "
        f"{model.d_model} per frame; torch threads {torch.get_num_threads()}"
    )
    import skimage.data

    tmp.mkdir(parents=True, exist_ok=True)
    photo = tmp / "astronaut.png"
    cv2.imwrite(str(photo), cv2.cvtColor(skimage.data.astronaut(), cv2.COLOR_RGB2BGR))
    t0 = time.perf_counter()
    src = prepare(photo, tmp / "state", model)
    print(f"prepare (landmarks, box, mask, reference latents): {time.perf_counter() - t0:.2f} s")
    # Three "rooms": the same prepared source registered under three keys, as three rooms' sources would be.
    keys = [src.key] + [f"room{r}" for r in (2, 3)]
    for k in keys[1:]:
        model.register(k, src.latents)
    pcm = voice_like(4.0)
    model.audio_features(pcm, RATE, FPS)  # warm-up
    t0 = time.perf_counter()
    feats = model.audio_features(pcm, RATE, FPS)
    print(f"whisper features: {(time.perf_counter() - t0) * 1000:.0f} ms for 4 s of audio ({len(feats)} frames)")
    # Wall time is the best of the runs (other processes only ever add to it); CPU time is this
    # process's, summed over its threads: on a shared machine the steadier figure of the two.
    print(f"{'batch':>5} {'batch ms':>9} {'ms/frame':>9} {'cpu ms/fr':>9} {'frames/s':>9} {'rooms':>6} "
          f"{'@' + format(args.speaking, '.0%'):>6}  gpu MiB")
    rows, crops = {}, []
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
            if model.device != "cpu":
                torch.cuda.synchronize(model.device)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        assert len(crops) == b
        t = min(times)
        fps = b / t
        mem = torch.cuda.max_memory_allocated(model.device) / 2**20 if model.device != "cpu" else 0.0
        cpu_ms = statistics.median(cpu) * 1000 / b
        rooms, rooms_share = int(fps // FPS), int(fps // (FPS * args.speaking))
        print(f"{b:>5} {t * 1000:>9.1f} {t * 1000 / b:>9.2f} {cpu_ms:>9.2f} {fps:>9.1f} {rooms:>6} {rooms_share:>6}  "
              f"{mem:>7.0f}")
        rows[b] = fps
    frame = src.source.frames[0].copy()
    t0 = time.perf_counter()
    for _ in range(50):
        compose(frame, crops[0], src.geometry.box(0), src.geometry.masks[0])
    print(f"paste-back (room side, CPU): {(time.perf_counter() - t0) / 50 * 1000:.2f} ms/frame")
    out = {"dtype": got, "rows": rows, "crops": np.stack(crops)}
    del model
    if args.device != "cpu" and torch.cuda.is_available():
        torch.cuda.empty_cache()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--full-size", action="store_true", help="published sizes (random weights) instead of tiny"
    )
    ap.add_argument("--model-dir", type=Path, help="an existing model folder in the published layout")
    ap.add_argument("--device", default="auto", help="auto | cpu | cuda | cuda:N")
    ap.add_argument("--dtypes", default="float16,bfloat16",
                    help="dtypes compared in this run, comma-separated (auto, float32, float16, bfloat16)")
    ap.add_argument("--sizes", default="1,2,4,8,12,16,24,32", help="batch sizes, comma-separated (1..256)")
    ap.add_argument("--iters", type=int, default=3, help="timed runs per batch size (after one warm-up)")
    ap.add_argument("--speaking", type=float, default=0.7, help="share of the time a room speaks, for rooms per GPU")
    ap.add_argument(
        "--threads", type=int, default=1, help="torch CPU threads (CPU runs; 1 = a per-core figure)"
    )
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    for noisy in ("transformers", "diffusers", "httpx"):
        logging.getLogger(noisy).setLevel(logging.ERROR)
    sizes = [int(s) for s in args.sizes.split(",")]
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]

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
        runs = [run_dtype(folder, d, args, sizes, Path(tmp) / d) for d in dtypes]
    base = runs[0]
    print(f"\n{'batch':>5} " + " ".join(f"{r['dtype'] + ' f/s':>16}" for r in runs)
          + "".join(f" {r['dtype'] + '/' + base['dtype']:>18}" for r in runs[1:]))
    for b in sizes:
        print(f"{b:>5} " + " ".join(f"{r['rows'][b]:>16.1f}" for r in runs)
              + "".join(f" {r['rows'][b] / base['rows'][b]:>18.2f}" for r in runs[1:]))
    for r in runs[1:]:
        diff = np.abs(r["crops"].astype(np.int16) - base["crops"]).mean()
        print(f"crops {r['dtype']} vs {base['dtype']}: mean |difference| {diff:.2f} of 255 (random weights)")
    for r in runs:
        fps, b = max((f, b) for b, f in r["rows"].items())
        print(f"best {r['dtype']}: {fps:.1f} frames/s at batch {b} -> {int(fps // FPS)} rooms speaking all the time, "
              f"{int(fps // (FPS * args.speaking))} at {args.speaking:.0%} speaking")


if __name__ == "__main__":
    main()
