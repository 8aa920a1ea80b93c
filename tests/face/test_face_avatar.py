"""The `neural` avatar kind through build_avatar: idle from the source, every frame of an utterance the model's (its pauses
too), whole utterances on the portrait fallback."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from renderer.base import FrameState, Viseme
from renderer.config import AvatarConfig
from renderer.factory import build_avatar
from renderer.idle import Pose
from renderer.neural.audio import frame_count
from renderer.neural.avatar import NeuralAvatar, plan_utterance
from renderer.neural.prepare import prepare

FPS = 25
W, H = 854, 480


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("state")


def _room(tiny_model_dir: Path, photo: Path, state: Path):
    cfg = AvatarConfig.model_validate(
        {"kind": "neural", "model_dir": str(tiny_model_dir), "source": str(photo)}
    )
    return build_avatar(cfg, W, H, FPS, cache_dir=state)


@pytest.fixture(scope="module")
def room(face_model, tiny_model_dir: Path, photos: dict[str, Path], state: Path):
    av = _room(tiny_model_dir, photos["astronaut"], state)
    prepare(photos["astronaut"], state, face_model)  # the model's side: registers the latents
    return av


def test_idle_is_the_source_placed_like_the_portrait(room) -> None:
    fig = room.figure
    assert isinstance(fig, NeuralAvatar)
    assert room.cfg.idle.sway_px == 0 and room.cfg.idle.breath == 0  # a still source: no sway to jump from
    a, b = room.render(FrameState(0, FPS)), room.render(FrameState(37, FPS))
    np.testing.assert_array_equal(a, b)
    # The portrait fallback (mouth closed, eyes open, no motion) draws the same picture in the same place.
    neural = np.zeros((H, W, 3), np.uint8)
    portrait = np.zeros((H, W, 3), np.uint8)
    fig.render_into(neural, FrameState(0, FPS), Pose(0, 0, 0, 0, 0, 0, 0))
    fig.fallback.render_into(portrait, FrameState(0, FPS), Pose(0, 0, 0, 0, 0, 0, 0))
    assert np.abs(neural.astype(int) - portrait).mean() < 1.0


def test_every_frame_of_an_utterance_is_the_models_and_changes_only_the_lower_face(
    room, face_model, speech: np.ndarray
) -> None:
    """Its silent lead-in and a pause inside it too: a frame of the raw source there would pop (the redrawn lower face
    differs from it); frames between utterances are the idle loop's."""
    fig: NeuralAvatar = room.figure
    words = speech[int(0.3 * 44100) : int(1.2 * 44100)]
    pause = np.zeros(int(0.3 * 44100), np.int16)
    utt = np.concatenate([words[: int(0.45 * 44100)], pause, words[int(0.45 * 44100) :]])
    idle = room.render(FrameState(10, FPS))
    start = 100
    frames = fig.speak(face_model, start, utt, 44100)
    assert frames == frame_count(len(utt), 44100, FPS)
    assert fig.has_frames(start, frames)
    s = fig.fallback.photo_scale
    x0, y0, x1, y1 = (v * s for v in fig.geometry.box(0))
    rx, ry = fig.rect[:2]
    ox, oy = fig._offset
    for k in range(frames):  # the lead-in, the words, the pause in the middle
        talking = room.render(FrameState(start + k, FPS, 0.3, Viseme.A, speaking=True))
        ys, xs = np.nonzero((talking != idle).any(axis=2))
        assert len(ys) > 200, f"frame {k} of {frames} shows the raw source"
        # Every changed pixel lies in the placed face box, below its upper 40 % (the mask's feather reaches a little
        # above the middle, as MuseTalk's does).
        assert xs.min() >= x0 + rx - ox - 2 and xs.max() <= x1 + rx - ox + 2
        assert ys.min() >= y0 + 0.4 * (y1 - y0) + ry - oy - 2 and ys.max() <= y1 + ry - oy + 2
    np.testing.assert_array_equal(room.render(FrameState(start + frames, FPS)), idle)  # after it: the idle loop
    # An utterance that is all silence is a pause: the model never sees it.
    passes = face_model.forward_passes
    assert fig.speak(face_model, start + frames, pause, 44100) == frame_count(len(pause), 44100, FPS)
    assert face_model.forward_passes == passes
    np.testing.assert_array_equal(room.render(FrameState(start + frames + 2, FPS, speaking=True)), idle)


def test_a_fallback_utterance_is_drawn_whole_by_the_portrait(room, face_model, speech: np.ndarray) -> None:
    fig: NeuralAvatar = room.figure
    start = 400
    frames = fig.speak(face_model, start, speech[: int(1.0 * 44100)], 44100)
    fig.use_fallback(start, frames)  # e.g. its first frames came too late
    pose = Pose(0, 0, 0, 0, 0, 0, 0)
    for k in (0, 15, frames - 1):
        st = FrameState(start + k, FPS, 0.7, Viseme.O, speaking=True)
        got = np.zeros((H, W, 3), np.uint8)
        want = np.zeros((H, W, 3), np.uint8)
        fig.render_into(got, st, pose)
        fig.fallback.render_into(want, st, pose)
        np.testing.assert_array_equal(got, want)
    # After the utterance the neural idle is back.
    np.testing.assert_array_equal(
        room.render(FrameState(start + frames, FPS)), room.render(FrameState(0, FPS))
    )


def test_a_late_frame_holds_the_previous_mouth(room, face_model, speech: np.ndarray) -> None:
    """A frame whose crop has not come: the previous mouth stays (no flash of the idle face), counted late."""
    fig: NeuralAvatar = room.figure
    start = 700
    features = face_model.audio_features(speech[: int(1.0 * 44100)], 44100, FPS)
    plans = fig.plan(start, features)
    # A frame right after another planned one.
    late = next(b.n for a, b in itertools.pairwise(plans) if b.n == a.n + 1 and a.n > plans[0].n)
    for p, crop in zip(plans, face_model.run_batch([p.item for p in plans]), strict=True):
        if p.n != late:
            fig.deliver(p.n, crop)
    before = fig.late_frames
    prev = room.render(FrameState(late - 1, FPS, 0.5, speaking=True))
    held = room.render(FrameState(late, FPS, 0.5, speaking=True))
    diff = (held != prev).any(axis=2)
    assert not diff.any(), f"{diff.sum()} px differ around {np.argwhere(diff).mean(axis=0)}"
    assert fig.late_frames == before + 1
    assert not np.array_equal(held, room.render(FrameState(0, FPS)))


def test_two_rooms_served_the_way_the_face_service_will(
    room, face_model, tiny_model_dir: Path, photos: dict[str, Path], state: Path, speech: np.ndarray
) -> None:
    """Rooms expect (no torch), the model side plans and runs both rooms' frames in one pass, rooms get their crops."""
    other = _room(tiny_model_dir, photos["hopper"], state)
    rooms = {"a": (room, photos["astronaut"], 900), "b": (other, photos["hopper"], 40)}
    pcm = speech[int(0.3 * 44100) : int(0.6 * 44100)]  # a silent lead-in, then 0.2 s of speech
    frames = frame_count(len(pcm), 44100, FPS)
    batch, owners = [], []
    for name, (av, photo, start) in rooms.items():
        av.figure.expect(start, frames)  # room side
        prepared = prepare(photo, state, face_model)  # service side: from the cache
        assert "geometry" not in prepared.computed
        feats = face_model.audio_features(pcm, 44100, FPS)
        assert len(feats) == frames  # both sides agree
        for p in plan_utterance(prepared, start, feats, FPS):
            batch.append(p.item)
            owners.append((name, p.n))
    assert {o for o, _ in owners} == {"a", "b"} and len(batch) <= face_model.max_batch
    passes = face_model.forward_passes
    crops = face_model.run_batch(batch)
    assert face_model.forward_passes == passes + 1
    for av, _, start in rooms.values():
        assert not av.figure.has_frames(start, frames)
    for (name, n), crop in zip(owners, crops, strict=True):
        rooms[name][0].figure.deliver(n, crop)
    for name, (av, _, start) in rooms.items():
        assert av.figure.has_frames(start, frames)
        n = max(n for o, n in owners if o == name)
        assert not np.array_equal(
            av.render(FrameState(n, FPS, 0.5, speaking=True)), av.render(FrameState(n + 50, FPS))
        )
    assert face_model.memory_bytes() > 0
