"""The stage: frame-exact audio, and the one line-end contract (LINE_END once every pushed utterance of an
ended line played or was cut)."""

from __future__ import annotations

import asyncio

import numpy as np

from broadcaster.lines import Line, LineSource, Utterance
from broadcaster.stage import Stage, StageEvent, StageEventKind
from broadcaster.stage_port import StagePort
from renderer.base import MouthTrack

FPS, RATE = 25, 44100
SPF = RATE // FPS


def _utt(line: Line, frames: int, index: int = 0) -> Utterance:
    pcm = np.full(frames * SPF, 0.25, np.float32)
    return Utterance(pcm=pcm, mouth=MouthTrack(np.full(frames, 0.5, np.float32), np.ones(frames, np.uint8)),
                     text=f"{line.text}#{index}", line=line, index=index)


class Rig:
    def __init__(self) -> None:
        self.events: list[StageEvent] = []
        self.stage = Stage(FPS, RATE, on_event=self.events.append)
        self.n = 0

    def run(self, frames: int) -> list[np.ndarray]:
        out = []
        for _ in range(frames):
            out.append(self.stage.tick(self.n)[1])
            self.n += 1
        return out

    def kinds(self, line: Line) -> list[str]:
        return [e.kind.value for e in self.events if e.line.id == line.id]


def test_a_line_ends_once_after_its_last_sentence_played() -> None:
    rig, line = Rig(), Line("a", LineSource.ANSWER)
    rig.stage.push(_utt(line, 3, 0))
    rig.stage.push(_utt(line, 2, 1))
    rig.run(4)
    rig.stage.end_line(line)  # the producer is done while the second sentence plays
    audio = rig.run(4)
    assert rig.kinds(line) == ["start", "end", "start", "end", "line_end"]
    end = rig.events[-1]
    assert end.kind == StageEventKind.LINE_END and end.played == 2 and not end.cut and end.utterance is None
    assert end.frame == 4  # on the frame the last sentence ended
    assert all(a.shape == (SPF,) for a in audio) and not audio[-1].any()  # silence after the line


def test_an_ended_line_whose_sentences_already_played_ends_at_the_next_frame() -> None:
    rig, line = Rig(), Line("b", LineSource.ANSWER)
    rig.stage.push(_utt(line, 2))
    rig.run(3)
    assert rig.kinds(line) == ["start", "end"]  # no LINE_END: the producer may still push more
    rig.stage.end_line(line)
    rig.run(1)
    assert rig.kinds(line)[-1] == "line_end"


def test_a_line_with_nothing_to_say_still_ends() -> None:
    rig, line = Rig(), Line("c", LineSource.ANSWER)
    rig.stage.end_line(line)
    rig.run(1)
    assert rig.kinds(line) == ["line_end"] and rig.events[0].played == 0


def test_interrupt_cuts_at_the_sentence_boundary_and_refuses_more() -> None:
    rig, line, other = Rig(), Line("d", LineSource.SCRIPT), Line("e", LineSource.ANSWER)
    for i in range(3):
        rig.stage.push(_utt(line, 2, i))
    rig.run(1)
    assert len(rig.stage.interrupt_line()) == 2  # the current sentence plays on
    assert not rig.stage.push(_utt(line, 2, 3))  # a late sentence of a cut line is refused
    rig.stage.push(_utt(other, 1))
    rig.run(3)
    assert rig.kinds(line) == ["start", "end", "line_end"]
    assert rig.events[[e.line.id for e in rig.events].index(line.id) + 2].cut
    assert rig.kinds(other) == ["start", "end"]  # the next line starts right after the cut sentence


def test_cutting_a_line_before_it_was_pushed_ends_it_and_refuses_its_sentences() -> None:
    rig, line = Rig(), Line("f", LineSource.SCRIPT)
    assert rig.stage.interrupt_line(line) == []
    assert not rig.stage.push(_utt(line, 1))
    rig.run(1)
    assert rig.kinds(line) == ["line_end"] and rig.events[0].cut


def test_clear_cuts_every_queued_line_on_shutdown() -> None:
    rig, a, b = Rig(), Line("g", LineSource.ANSWER), Line("h", LineSource.ANSWER)
    rig.stage.push(_utt(a, 2))
    rig.stage.push(_utt(b, 2))
    rig.run(1)
    assert rig.stage.clear() == 1
    rig.run(2)
    assert rig.kinds(b) == ["line_end"] and rig.kinds(a) == ["start", "end"]
    rig.stage.end_line(a)
    rig.run(1)
    assert rig.kinds(a)[-1] == "line_end"


def test_memory_of_lines_is_bounded() -> None:
    rig = Rig()
    for i in range(3000):
        line = Line(str(i), LineSource.SCRIPT)
        rig.stage.push(_utt(line, 1))
        rig.stage.end_line(line)
        rig.run(1)
    assert not rig.stage._lines and len(rig.stage._over) <= rig.stage._over.maxlen


async def test_a_line_that_ended_before_anyone_waited_is_still_reported() -> None:
    """Two rooms' lines awaited one after the other: the second may have ended already; its LINE_END is kept."""
    port = StagePort(Stage(25, 44100), lambda: None, lambda: [])
    port.bind(asyncio.get_running_loop())
    line = Line("早就说完了。", LineSource.OPERATOR)
    ended = StageEvent(StageEventKind.LINE_END, line, frame=10, sample=17640, played=1)
    port.on_stage_event(ended)
    await asyncio.sleep(0)  # the dispatch runs on the loop
    assert await port.line_ended(line.id, 0.1) is ended
    assert await port.line_ended(Line("还没说。", LineSource.OPERATOR).id, 0.05) is None
