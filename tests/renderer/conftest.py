"""Shared fixtures for renderer tests: real espeak-ng speech at the stage rate, drawn photos and sprite sets."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from renderer_faces import draw_face_photo, write_sprite_set
from renderer_speech import STAGE_RATE, resample, synth


@pytest.fixture(scope="session")
def speech_en() -> np.ndarray:
    pcm, rate = synth(
        "Hello everyone, welcome to the live room. Today we look at a new phone, and it is really good."
    )
    return resample(pcm, rate, STAGE_RATE)


@pytest.fixture(scope="session")
def speech_zh() -> np.ndarray:
    pcm, rate = synth("大家好，欢迎来到直播间。今天给大家介绍一款新手机，性价比非常高。", "cmn")
    return resample(pcm, rate, STAGE_RATE)


@pytest.fixture(scope="session")
def face_photo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    img, regions = draw_face_photo(1280, 720)
    path = tmp_path_factory.mktemp("portrait") / "anchor.png"
    cv2.imwrite(str(path), img)
    return path, regions


@pytest.fixture(scope="session")
def sprite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sprite") / "anchor"
    write_sprite_set(folder)
    return folder
