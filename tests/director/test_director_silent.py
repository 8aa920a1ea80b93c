"""Every viewer's comment that gets no line of its own is reported with why (the room audits it): too short, rate
limited, merged into a waiting question like it, stale in the queue, pushed out of a full queue."""

from __future__ import annotations

from director_helpers import Clock, director, ev

from danmaku.event import EventKind


def test_comments_left_without_a_line_are_reported_with_why() -> None:
    c = Clock()
    d = director("silent", c, triage={"user_burst": 1, "user_rate_per_min": 1, "merge_window_s": 30,
                                      "deadlines": {"question": 5}})
    said: list[tuple[str, str]] = []
    d.on_silent = lambda event, why: said.append((event.text, why))
    d.offer(ev(c, EventKind.COMMENT, "?", "a"))
    d.offer(ev(c, EventKind.COMMENT, "多少钱呀", "b"))
    d.offer(ev(c, EventKind.COMMENT, "这个多少钱呀", "b"))  # the same viewer at once: rate limited
    d.offer(ev(c, EventKind.COMMENT, "多少钱呀？", "c"))  # another viewer, the same question: merged into the first
    d.offer(ev(c, EventKind.LIKE, "", "d"))  # not a comment: nothing to audit
    assert said == [("?", "too_short"), ("这个多少钱呀", "rate_limit"), ("多少钱呀？", "merged into a waiting question like it")]
    c.t += 10  # the queued question's deadline passes before anything picks it
    assert d.pick() is None or d.pick() is None
    assert said[-1] == ("多少钱呀", "stale")
