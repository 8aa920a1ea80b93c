"""Shared TTS service bench: sentences/s and per-sentence latency through the service vs in-process backends.

For 1, 2 and 4 clients (rooms), each saying the same sentences one after the other: "inproc" gives every
client its own loaded backend in this process (today without host_service); "service" gives them one
shared service process (voice.host_service) reached through ServiceBackend. Models are tiny and built on
the spot (tests/voice/tinymodels.py), so the figures show the mechanism's overhead, not a real voice's cost.
In-process Coqui here is the favourable case: this process built the tiny VITS on its main thread, which warms
torch's thread pool (see broadcaster/services/tts.py: without it each synthesis is several times slower).
Run: .venv/bin/python bench/bench_services.py [--backend piper|coqui] [--sentences N] [--repeat N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from broadcaster.config import Config
from broadcaster.services import HostServices
from broadcaster.services.config import ServicesConfig
from broadcaster.voice.backends.base import TTSBackend
from broadcaster.voice.config import VoiceConfig
from broadcaster.voice.voice import make_backend

ZH = ["欢迎来到直播间，喜欢主播的点点关注。", "今天这款产品只要一百九十九点九元。", "库存不多了，大家抓紧时间下单。",
      "有问题可以在弹幕里问我。", "感谢大家的礼物，谢谢支持！"]
EN = ["welcome to the live room, please follow.", "this one is only one hundred ninety nine today.",
      "stock is limited, order now.", "ask me anything in the chat.", "thanks for the gift, and thanks for coming!"]


async def _client(b: TTSBackend, texts: list[str]) -> list[float]:
    lat = []
    for text in texts:
        t0 = time.perf_counter()
        async for _ in b.synthesize(text):
            pass
        lat.append(time.perf_counter() - t0)
    return lat


async def _run(backends: list[TTSBackend], texts: list[str]) -> tuple[float, list[float]]:
    """All clients at once, each saying `texts` in turn: (sentences per second, every sentence's latency)."""
    t0 = time.perf_counter()
    lats = await asyncio.gather(*(_client(b, texts) for b in backends))
    return sum(map(len, lats)) / (time.perf_counter() - t0), [x for lat in lats for x in lat]


def _summary(runs: list[tuple[float, list[float]]]) -> dict[str, float]:
    """Median rate over the repeats; latency percentiles over every sentence of every repeat."""
    flat = sorted(x for _, lat in runs for x in lat)
    return {"rps": statistics.median(r for r, _ in runs), "p50": 1000 * statistics.median(flat),
            "p95": 1000 * flat[min(len(flat) - 1, int(0.95 * len(flat)))]}


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", choices=["piper", "coqui"], default="piper")
    ap.add_argument("--sentences", type=int, default=20, help="per client")
    ap.add_argument("--clients", default="1,2,4")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-wait-ms", type=float, default=0.0)
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "voice"))
    from tinymodels import build_tiny_piper_voice, build_tiny_vits

    tmp = Path(tempfile.mkdtemp(prefix="bench-services-"))
    voice: dict[str, Any]
    if args.backend == "piper":
        voice = {"backend": "piper", "piper": {"model": str(build_tiny_piper_voice(tmp / "piper"))}}
        texts = ZH
    else:
        voice = {"backend": "coqui", "coqui": {"model_dir": str(build_tiny_vits(tmp / "vits"))}, "language": "en",
                 "voice": "en-us"}
        texts = EN
    texts = (texts * (args.sentences // len(texts) + 1))[:args.sentences]
    voice |= {"device": "cpu", "fallback_voice": ""}
    print(f"backend {args.backend} (tiny), {args.sentences} sentences per client, max_wait_ms {args.max_wait_ms}")
    print(f"{'clients':>7} {'mode':>8} {'sent/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'batch':>6}   service/inproc")
    for n in [int(x) for x in args.clients.split(",")]:
        local = [make_backend(VoiceConfig(**voice), room=f"r{i}") for i in range(n)]
        for b in local:
            await b.start()
        cfg = Config.model_validate({"rooms": [{"id": f"r{i}", "voice": {**voice, "host_service": True}}
                                               for i in range(n)]})
        hs = HostServices(cfg, cfg=ServicesConfig(kinds={"tts": {"max_batch": 8, "max_wait_ms": args.max_wait_ms}},
                                                  stats_interval_s=0.5))
        await hs.start()
        await hs.wait_ready(300)
        remote = [make_backend(r.voice, room=r.id) for r in cfg.rooms]
        for b in remote:
            await b.start()
        for b in local + remote:  # warm: the first call pays for lazy work
            await _client(b, texts[:1])
        runs: dict[str, list[tuple[float, list[float]]]] = {"inproc": [], "service": []}
        for _ in range(args.repeat):  # interleaved, so a change in the machine's load hits both alike
            runs["inproc"].append(await _run(local, texts))
            runs["service"].append(await _run(remote, texts))
        inproc, served = _summary(runs["inproc"]), _summary(runs["service"])
        stats = await remote[0].client().stats()  # type: ignore[attr-defined]
        mean_batch = stats["batch_size"]["sum"] / max(1, stats["batches"])
        rss = _rss_mb(stats["pid"])
        for b in local + remote:
            await b.close()
        await hs.stop()
        print(f"{n:>7} {'inproc':>8} {inproc['rps']:>8.1f} {inproc['p50']:>8.1f} {inproc['p95']:>8.1f} {'':>6}")
        print(f"{n:>7} {'service':>8} {served['rps']:>8.1f} {served['p50']:>8.1f} {served['p95']:>8.1f} "
              f"{mean_batch:>6.2f}   throughput ×{served['rps'] / inproc['rps']:.2f}, "
              f"p50 ×{served['p50'] / inproc['p50']:.2f}; 1 model load (service RSS {rss:.0f} MB) vs {n}")

if __name__ == "__main__":
    asyncio.run(main())
