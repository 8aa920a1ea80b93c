"""Talk-track pacing: when the stage is (estimated to be) idle long enough for the next script line.

Every line handed out makes the stage busy for about its length at `chars_per_s` (an answer, whose
text is still the question, at least 5 s); `line_done` from the stage ends that estimate early when
it was the last line handed out. A script line is due once the stage has been idle for the pause, and
never while `max_ahead` script lines are handed out and not yet over. The pause is drawn anew after every
line handed out, within `gap_range_s` (a fixed `gap_s` when one is configured), so the track keeps no beat.
"""

from __future__ import annotations

import random

from broadcaster.director.config import TalkConfig
from broadcaster.lines import Line, LineSource

MIN_ANSWER_S = 5.0  # an answer is longer than the question it answers


class Pacing:
    def __init__(self, cfg: TalkConfig) -> None:
        self.cfg = cfg
        self.busy_until = -float("inf")  # estimated end of everything handed out
        self.last_handed = 0  # id of the last line handed out
        self.script_out: dict[int, float] = {}  # script line id → its estimated end
        self.rng = random.Random(cfg.seed)
        self.gap = self._draw_gap()  # the pause before the next script line

    def _draw_gap(self) -> float:
        if self.cfg.gap_s is not None:
            return self.cfg.gap_s
        lo, hi = self.cfg.gap_range_s
        return self.rng.uniform(lo, hi)

    @property
    def mean_gap(self) -> float:
        """The pause on average (what the talk track's material estimate uses)."""
        return self.cfg.gap_s if self.cfg.gap_s is not None else sum(self.cfg.gap_range_s) / 2

    def estimate_s(self, line: Line) -> float:
        est = len(line.text) / self.cfg.chars_per_s + 0.3
        return max(est, MIN_ANSWER_S) if line.source == LineSource.ANSWER else est

    def handed(self, line: Line, now: float) -> None:
        """A line was handed out: the stage is busy with it after whatever it was already saying."""
        self.busy_until = max(self.busy_until, now) + self.estimate_s(line)
        self.last_handed = line.id
        self.gap = self._draw_gap()
        if line.source == LineSource.SCRIPT:
            self.script_out[line.id] = self.busy_until

    def line_done(self, line: Line, now: float) -> None:
        """The stage finished (or cut) a line. It is idle only when that was the last line handed out:
        the next one may already be playing back to back."""
        self.script_out.pop(line.id, None)
        if line.id == self.last_handed and not self.script_out:
            self.busy_until = min(self.busy_until, now)

    def script_due(self, now: float) -> bool:
        """Whether a script line may start now (forgets script lines whose estimated end has passed)."""
        self.script_out = {k: end for k, end in self.script_out.items() if end > now}
        if len(self.script_out) >= self.cfg.max_ahead:
            return False
        return now >= self.busy_until + self.gap  # else the stage is (estimated) still speaking

    def due_in(self, now: float) -> float:
        """Seconds until the gap after the current estimate has passed."""
        return self.busy_until + self.gap - now

    @property
    def outstanding(self) -> int:
        return len(self.script_out)
