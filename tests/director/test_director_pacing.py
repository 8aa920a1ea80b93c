"""Talk-track pacing: the busy estimate, line_done hints, max_ahead and the gap."""

from __future__ import annotations

from director_helpers import cfg

from broadcaster.director.pacing import MIN_ANSWER_S, Pacing
from broadcaster.lines import Line, LineSource


def _pacing(**talk) -> Pacing:
    return Pacing(cfg(talk=talk).talk)


def _line(text: str, source: LineSource) -> Line:
    return Line(text=text, source=source)


def test_estimates_from_the_speaking_rate_and_answers_take_a_while() -> None:
    p = _pacing(chars_per_s=5.0)
    assert p.estimate_s(_line("一" * 20, LineSource.SCRIPT)) == 20 / 5.0 + 0.3
    assert p.estimate_s(_line("包邮吗", LineSource.ANSWER)) == MIN_ANSWER_S
    assert p.estimate_s(_line("一" * 50, LineSource.ANSWER)) == 50 / 5.0 + 0.3


def test_lines_handed_out_back_to_back_add_up() -> None:
    p = _pacing(chars_per_s=1.0, gap_s=1.0)
    p.handed(_line("一二", LineSource.THANKS), 0.0)  # busy until 2.3
    p.handed(_line("一二", LineSource.THANKS), 1.0)  # queued behind it: 4.6
    assert p.busy_until == 4.6 and p.due_in(0.0) == 5.6
    assert not p.script_due(5.5) and p.script_due(5.6)


def test_line_done_ends_the_estimate_only_for_the_last_line_handed_out() -> None:
    p = _pacing(chars_per_s=1.0, gap_s=1.0)
    first = _line("一二三四五六", LineSource.THANKS)
    second = _line("一二三四五六", LineSource.THANKS)
    p.handed(first, 0.0)
    p.handed(second, 0.0)
    p.line_done(first, 2.0)  # the second may already be playing
    assert not p.script_due(3.0)
    p.line_done(second, 3.0)
    assert not p.script_due(3.5) and p.script_due(4.0)


def test_at_most_max_ahead_script_lines_are_out() -> None:
    p = _pacing(chars_per_s=1.0, gap_s=0.0, max_ahead=1)
    script = _line("一二三", LineSource.SCRIPT)
    p.handed(script, 0.0)
    assert p.outstanding == 1
    p.busy_until = -1.0  # even if the stage were idle
    assert not p.script_due(1.0)
    assert p.script_due(3.4) and p.outstanding == 0  # its estimated end passed: forgotten
    p.handed(script, 10.0)
    p.line_done(script, 11.0)
    assert p.outstanding == 0 and p.script_due(11.0)


def test_two_ahead_allows_a_second_script_line() -> None:
    p = _pacing(chars_per_s=1.0, gap_s=0.0, max_ahead=2)
    p.handed(_line("一二三", LineSource.SCRIPT), 0.0)
    p.busy_until = -1.0
    assert p.script_due(0.0)
