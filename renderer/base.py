"""The renderer contract: the mouth track, what the stage says about a frame, and the Avatar protocol."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from renderer.card import Card


class Viseme(IntEnum):
    CLOSED = 0
    A = 1
    I = 2  # noqa: E741 - the viseme's name
    U = 3
    E = 4
    O = 5  # noqa: E741 - the viseme's name


@dataclass(frozen=True, slots=True)
class MouthTrack:
    """One value set per video frame of an utterance: openness 0..1 and a viseme class."""

    openness: np.ndarray  # float32, shape (frames,)
    viseme: np.ndarray  # uint8 Viseme values, shape (frames,)

    def __len__(self) -> int:
        return int(self.openness.shape[0])

    @classmethod
    def silent(cls, frames: int) -> MouthTrack:
        return cls(np.zeros(frames, np.float32), np.zeros(frames, np.uint8))


@dataclass(frozen=True, slots=True)
class FrameState:
    """Everything the stage decides about video frame n; the avatar and compositor draw it."""

    n: int
    fps: int
    openness: float = 0.0
    viseme: Viseme = Viseme.CLOSED
    speaking: bool = False
    subtitle: str = ""
    banner: str = ""  # e.g. "answering @user: question"
    card: Card | None = None  # the product card on screen (renderer/card.py)

    @property
    def t(self) -> float:
        return self.n / self.fps


class Avatar(Protocol):
    """Draws frame n as a BGR uint8 array of the canvas size; must be cheap per frame."""

    width: int
    height: int

    def render(self, state: FrameState) -> np.ndarray: ...
