"""The contracts between director, brain, voice and stage: Line and Utterance."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from danmaku.event import Event
from renderer.base import MouthTrack

_ids = itertools.count(1)
_utterance_ids = itertools.count(1)


class LineSource(StrEnum):
    """Why a line is said."""

    ANSWER = "answer"
    SCRIPT = "script"
    OPERATOR = "operator"
    THANKS = "thanks"


class LineKind(StrEnum):
    """What triage made of it (ranks, deadlines and the console use this)."""

    SUPER_CHAT = "super_chat"
    GUARD = "guard"
    GIFT = "gift"
    QUESTION = "question"
    COMMENT = "comment"
    FOLLOW = "follow"
    OPERATOR = "operator"
    SCRIPT = "script"


@dataclass(frozen=True, slots=True)
class Line:
    """What should be said and why."""

    text: str
    source: LineSource
    event: Event | None = None
    priority: int = 0  # higher goes first
    deadline_mono: float = float("inf")  # dropped if not started by then
    banner: str = ""
    id: int = field(default_factory=lambda: next(_ids))
    created_mono: float = field(default_factory=time.monotonic)


@dataclass(slots=True)
class Utterance:
    """One speakable piece (a sentence) of a Line: PCM at the stage rate plus its mouth track.

    pcm is float32 mono in [-1, 1] at the stage sample rate. mouth has one entry per video frame the
    utterance covers (ceil(len(pcm) / samples_per_frame)). `id` is stable and unique in the process;
    `index` counts the line's utterances, `part` names which text of the producer's stream it voices.
    A line's end is not a flag on an utterance: the producer calls the stage's `end_line` and the stage
    announces LINE_END when the rest has played.
    """

    pcm: np.ndarray
    mouth: MouthTrack
    text: str
    line: Line
    index: int = 0
    part: int = 0
    id: int = field(default_factory=lambda: next(_utterance_ids))
