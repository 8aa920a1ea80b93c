"""The talk figures the console shows, from the director's own state: variety and repeats after lines are said, the
material warning exactly as `check` words it, and paraphrases refused by reason with the last refused text."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import AsyncIterator
from pathlib import Path

from director_helpers import Clock, cfg, moderator

from broadcaster.director import Director
from broadcaster.director.talk import Scene, material_warnings

NOON = dt.datetime(2026, 12, 1, 12, 0)
THIN = "segments:\n  - name: pitch\n    lines: [这款保温杯内胆是316不锈钢。, 有问题打在公屏上。]\n"
RICH = ("segments:\n  - name: pitch\n    lines:\n"
        "      - '{这款|这只|咱家这个}杯子{内胆|里面}是316不锈钢{的|}，{用着放心|喝着安心|装什么都放心}。'\n"
        "      - '{有问题|想了解什么}{可以|都可以}打在公屏上，{我来回答|我一个个回答|主播来解答}。'\n")


def _room(tmp: Path, text: str, clock: Clock, **talk):
    path = tmp / "talk.yaml"
    path.write_text(text, encoding="utf-8")
    return Director("r", cfg(talk={"file": str(path), "gap_s": 1.0, "seed": 3, **talk}), moderator(), fps_clock=clock,
                    wall_clock=lambda: NOON)


def _say(d, clock: Clock, n: int) -> None:
    for _ in range(n):
        line = d.pick()
        assert line is not None
        clock.t += len(line.text) / 4.5 + 2.0
        d.line_done(line)


def test_a_thin_rooms_snapshot_counts_its_repeats_and_carries_checks_warning(tmp_path: Path) -> None:
    clock = Clock()
    d = _room(tmp_path, THIN, clock)
    warnings = material_warnings(d.cfg.talk)
    assert warnings and "1 way(s) to say it" in warnings[0]
    _say(d, clock, 6)
    talk = d.snapshot()["talk"]
    assert talk["material_warnings"] == warnings  # the same text `check` prints
    assert talk["window_s"] == 600.0 and talk["lines"] == 6
    assert talk["distinct_sentences_hour"] == 2
    assert talk["repeats_in_window"] == 4 and talk["repeats_total"] == 4  # two lines, said three times each
    assert "paraphrases" not in talk


def test_a_rooms_track_with_enough_material_has_no_warning(tmp_path: Path) -> None:
    clock = Clock()
    d = _room(tmp_path, RICH, clock, repeat_window_s=120)  # 36 and 12 sayings a line, 5 needed
    _say(d, clock, 8)
    talk = d.snapshot()["talk"]
    assert talk["material_warnings"] == [] == material_warnings(d.cfg.talk)
    assert talk["window_s"] == 120.0 and talk["repeats_in_window"] == 0 and talk["distinct_sentences_hour"] == 8


class _LLM:
    """The brain's Backend shape, answering every prompt with the same candidates."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.calls = 0

    async def stream(self, messages, *, max_tokens: int, temperature: float) -> AsyncIterator[str]:
        self.calls += 1
        await asyncio.sleep(0)
        yield self.text

    async def close(self) -> None:
        pass


async def test_paraphrases_refused_by_the_guard_show_by_reason_with_the_last_text(tmp_path: Path) -> None:
    from broadcaster.director.config import ParaphraseConfig
    from broadcaster.director.paraphrase import Paraphraser

    clock = Clock()
    d = _room(tmp_path, THIN, clock)
    figure, absolute = "这款杯子今天只要99元。", "它是销量第一的保温杯。"
    llm = _LLM(f"{figure}\n{absolute}\n")
    p = Paraphraser(llm, d.moderator, ParaphraseConfig(enabled=True, per_line=1, points=0), room="r")
    d.talk.attach_paraphraser(p)
    d.talk.present(Scene())
    try:
        _say(d, clock, 2)  # each line asks for its paraphrases; the worker runs in the background
        for _ in range(200):
            await asyncio.sleep(0.01)
            if llm.calls >= 2 and p.waiting()[1] == 0 and not p._queued:
                break
        para = d.snapshot()["talk"]["paraphrases"]
    finally:
        await p.close()
    assert para["rejected"]["figure"] >= 2 and para["rejected"]["absolute"] >= 2
    assert para["last_refused"] == {"figure": figure, "absolute": absolute}
    assert para["accepted"] == 0 and para["ready"] == 0 and para["llm_calls"] == llm.calls
