"""render_next (the media clock's double-buffered render that redraws only what changed) draws exactly what
render draws, and the frame it returned last stays intact while the next one is drawn."""

from __future__ import annotations

import numpy as np
import pytest

from renderer.base import FrameState, Viseme
from renderer.config import AvatarConfig
from renderer.factory import build_avatar


def _state(n: int) -> FrameState:
    # Speech with subtitle and banner for 30 frames of every 50, then idle (overlays come and go), the
    # mouth moving through its shapes; idle motion moves the body every few frames by itself.
    speaking = n % 50 < 30
    return FrameState(n=n, fps=25, speaking=speaking, openness=(n % 7) / 6 if speaking else 0.0,
                      viseme=Viseme(1 + n % 5) if speaking else Viseme.CLOSED,
                      subtitle=f"第{n // 50}句字幕" if speaking else "", banner="@观众: 多少钱？" if speaking else "")


# The default layout (overlays clear of the head) and one whose banner and subtitle reach over the head, where
# overlays kept in place must be given up whenever a feature is redrawn beneath them.
LAYOUTS = [{}, {"overlays": {"subtitle": {"position": "middle"}, "banner": {"position": "top"}}}]


@pytest.mark.parametrize("layout", LAYOUTS, ids=["default", "overlays-over-head"])
def test_render_next_is_pixel_identical_to_render_and_keeps_the_last_frame(layout: dict) -> None:
    cfg = AvatarConfig.model_validate(layout)
    fresh = build_avatar(cfg, 640, 360, 25)
    reusing = build_avatar(cfg, 640, 360, 25)
    previous: tuple[np.ndarray, np.ndarray] | None = None
    body_moves = 0
    key = None
    for n in range(200):
        fresh._body_key = None  # the reference redraws background and body from scratch every frame
        expected = fresh.render(_state(n))
        got = reusing.render_next(_state(n))
        assert np.array_equal(got, expected), f"frame {n} differs"
        if previous is not None:
            assert got is not previous[0]
            assert np.array_equal(previous[0], previous[1]), f"frame {n - 1} changed while {n} was drawn"
        previous = (got, expected)
        body_moves += reusing._body_key != key
        key = reusing._body_key
    assert body_moves > 3  # the body did move, so both the partial and the full redraw were exercised
