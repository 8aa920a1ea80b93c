"""Fixtures for the neural face: a tiny MuseTalk-layout model with random weights, loaded by the real loader; real photos; real speech."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "renderer"))

from renderer_photos import astronaut, hopper
from renderer_speech import STAGE_RATE, resample, synth

from tests.face.tinymodel import write_model
from tests.support.programs import missing

FPS = 25


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.util.find_spec("diffusers") is None or importlib.util.find_spec("torch") is None:
        missing("the `face` extra (torch, diffusers, transformers) is not installed (scripts/setup.sh installs it)")
    return write_model(tmp_path_factory.mktemp("face-model") / "models")


@pytest.fixture(scope="session")
def face_model(tiny_model_dir: Path):
    from renderer.neural.loader import load_face_model

    return load_face_model(tiny_model_dir, device="cpu", dtype="auto", max_batch=16)


@pytest.fixture(scope="session")
def photos(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real photos on disk: scikit-image's astronaut and matplotlib's Grace Hopper."""
    folder = tmp_path_factory.mktemp("face-photos")
    out = {}
    for p in (astronaut(), hopper()):
        out[p.name] = folder / f"{p.name}.png"
        cv2.imwrite(str(out[p.name]), p.image)
    return out


@pytest.fixture(scope="session")
def speech() -> np.ndarray:
    """Real speech (espeak-ng) at the stage's rate, int16, with 0.4 s of silence before it."""
    pcm, rate = synth("Hello everyone, welcome to the live room.")
    pcm = resample(pcm, rate, STAGE_RATE)
    pcm = np.concatenate([np.zeros(int(0.4 * STAGE_RATE), np.float32), pcm])
    return (np.clip(pcm, -1, 1) * 32767).astype(np.int16)
