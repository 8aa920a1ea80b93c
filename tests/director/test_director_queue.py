"""The line queue: rank, bounded with the queue_full policy, near-duplicate merge, stale purge, console rows."""

from __future__ import annotations

import json

from broadcaster.director.queue import MAX_NAMES, LineQueue
from broadcaster.director.triage import Candidate, Drop
from broadcaster.lines import LineKind, LineSource


def _q(maxlen: int = 4, *, window: float = 30.0) -> tuple[LineQueue, list[tuple[Drop, int]]]:
    drops: list[tuple[Drop, int]] = []
    q = LineQueue(maxlen, merge_similarity=0.8, merge_window_s=window, on_drop=lambda r, n: drops.append((r, n)))
    return q, drops


def _c(key: str, priority: float = 40, kind: LineKind = LineKind.QUESTION, deadline: float = 1e9,
       name: str = "u", source: LineSource = LineSource.ANSWER) -> Candidate:
    return Candidate(kind, priority, key, key, name, deadline, source)


def test_best_is_highest_priority_then_first_come() -> None:
    q, _ = _q()
    for key, prio in [("a1", 20), ("b1", 40), ("c1", 40), ("d1", 100)]:
        q.push(_c(key, prio), None, 0.0)
    order = []
    while (best := q.best()) is not None:
        order.append(q.take(best, 0.0).text)
    assert order == ["d1", "b1", "c1", "a1"]


def test_a_full_queue_keeps_the_better_line_and_reports_each_drop() -> None:
    q, drops = _q(2)
    q.push(_c("low", 20), None, 0.0)
    q.push(_c("mid", 40), None, 0.0)
    assert not q.has_room(20, "new", 0.0) and q.has_room(21, "new", 0.0)
    assert q.has_room(20, "low", 0.0)  # a waiting key can always merge
    assert not q.push(_c("also low", 20), None, 0.0)  # equal rank loses to the older line
    assert q.push(_c("high", 100), None, 0.0)
    assert [it.text for it in q.items] == ["mid", "high"]
    assert drops == [(Drop.QUEUE_FULL, 1), (Drop.QUEUE_FULL, 1)]


def test_stale_lines_make_room_and_are_counted() -> None:
    q, drops = _q(2)
    q.push(_c("old", 40, deadline=10.0), None, 0.0)
    q.push(_c("older", 40, deadline=5.0), None, 0.0)
    assert q.has_room(1, "new", 11.0)  # a stale line will make room
    assert q.push(_c("new", 1), None, 11.0)
    assert [it.text for it in q.items] == ["new"] and drops == [(Drop.STALE, 2)]
    assert q.live(11.0)
    q.purge_stale(2e9)
    assert len(q) == 0 and not q.live(2e9) and drops[-1] == (Drop.STALE, 1)


def test_near_duplicates_merge_within_the_window_and_climb() -> None:
    q, _ = _q(window=30.0)
    q.push(_c("这个杯子多少钱", name="a"), None, 0.0)
    q.push(_c("什么时候发货", name="z"), None, 0.0)
    assert q.merge("这个杯子多少钱", "b", 1.0)  # same key
    assert q.merge("这个杯子多少钱啊", "c", 2.0)  # similar key
    assert q.merge("这个杯子多少钱", "b", 3.0)  # counted again, named once
    assert not q.merge("能装咖啡吗", "d", 4.0)
    assert not q.merge("这个杯子多少钱", "e", 31.0)  # the waiting line is older than the window
    item = q.best()
    assert item is not None and item.count == 4 and item.names == ["a", "b", "c"]
    assert item.rank()[0] == 40 + 3 * 2.0
    line = q.take(item, 5.0)
    assert line.count == 4 and line.names == ("a", "b", "c") and line.banner == "a 等4人：这个杯子多少钱"
    assert line.kind is LineKind.QUESTION and line.deadline_mono == 1e9 and line.created_mono == 0.0


def test_merged_names_are_capped() -> None:
    q, _ = _q()
    q.push(_c("包邮吗", name="n0"), None, 0.0)
    for i in range(1, 20):
        q.merge("包邮吗", f"n{i}", 0.0)
    item = q.best()
    assert item is not None and item.count == 20 and len(item.names) == MAX_NAMES
    assert item.rank()[0] == 40 + 10 * 2.0  # the climb is capped too


def test_super_chats_and_thanks_are_never_merge_targets() -> None:
    q, _ = _q()
    q.push(_c("包邮吗", 100, LineKind.SUPER_CHAT), None, 0.0)
    q.push(_c("", 80, LineKind.GUARD, source=LineSource.THANKS), None, 0.0)
    assert not q.merge("包邮吗", "v", 0.0) and not q.merge("", "v", 0.0)


def test_a_key_handed_out_counts_as_answered_for_the_window() -> None:
    q, _ = _q(window=30.0)
    q.push(_c("包邮吗"), None, 0.0)
    q.take(q.best(), 10.0)
    assert q.recently_answered("包邮吗", 39.0) and not q.recently_answered("包邮吗", 40.0)
    assert not q.recently_answered("发货快吗", 11.0)
    assert not q.merge("包邮吗", "v", 11.0)  # no longer waiting


def test_rows_are_best_first_and_show_kinds_as_strings() -> None:
    q, _ = _q()
    q.push(_c("包邮吗", 40, deadline=25.0), None, 0.0)
    q.push(_c("有发票吗", 100, LineKind.SUPER_CHAT, deadline=180.0), None, 0.0)
    rows = q.rows(5.0)
    assert [r["text"] for r in rows] == ["有发票吗", "包邮吗"]
    assert rows[1] == {"kind": "question", "text": "包邮吗", "count": 1, "names": ["u"], "priority": 40,
                       "age_s": 5.0, "expires_in_s": 20.0}
    assert json.loads(json.dumps(rows))[0]["kind"] == "super_chat"
