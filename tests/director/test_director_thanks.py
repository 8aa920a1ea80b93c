"""Thanks: gift and follow batches (names, top gifts, exact sums), guards."""

from __future__ import annotations

import pytest
from director_helpers import cfg

from broadcaster.director.thanks import Thanks, join_names
from broadcaster.director.triage import Thank
from broadcaster.lines import LineKind, LineSource


def _thanks(**triage) -> Thanks:
    return Thanks(cfg(triage=triage).triage)


def _gift(name: str, gift: str = "小心心", count: int = 1, value_milli: int = 0) -> Thank:
    return Thank(LineKind.GIFT, name, gift=gift, count=count, value_milli=value_milli)


@pytest.mark.parametrize(("names", "text"), [
    (["甲"], "甲"),
    (["甲", "乙"], "甲和乙"),
    (["甲", "乙", "丙"], "甲、乙和丙"),
    (["甲", "乙", "丙", "丁"], "甲、乙、丙等4位朋友"),
    ([], ""),
])
def test_join_names(names: list[str], text: str) -> None:
    assert join_names(names, 3) == text


def test_one_line_per_window_names_people_and_the_top_two_gifts() -> None:
    t = _thanks(gift_batch_s=8, gift_batch_names=4)
    assert not t.open and not t.gifts_ready(0.0)
    assert t.add(_gift("小红"), 0.0) is False  # the first gift opens the batch
    assert t.add(_gift("小红"), 1.0) is True
    assert t.add(_gift("小明", "辣条", 5), 2.0) is True
    assert t.add(_gift("小刚", "荧光棒", 1), 3.0) is True
    assert t.open and not t.gifts_ready(7.9)
    assert t.due_in(7.0) == [1.0]
    line = t.gift_line(8.0)
    assert line.text == "谢谢小红、小明和小刚送的辣条和小心心！"
    assert line.kind is LineKind.GIFT and line.source is LineSource.THANKS and line.count == 4
    assert line.names == ("小红", "小明", "小刚") and line.deadline_mono == 0.0 + 45.0 and line.priority == 60
    assert not t.open and t.snapshot(8.0) is None


def test_a_batch_is_ready_early_once_it_names_enough_people() -> None:
    t = _thanks(gift_batch_s=8, gift_batch_names=2)
    t.add(_gift("甲"), 0.0)
    assert not t.gifts_ready(0.0)
    t.add(_gift("乙"), 0.0)
    assert t.gifts_ready(0.0)


def test_money_is_summed_exactly() -> None:
    t = _thanks()
    for _ in range(3):
        t.add(_gift("甲", value_milli=100), 0.0)  # 0.1 + 0.1 + 0.1 yuan
    assert t.gifts is not None and t.gifts.value_milli == 300
    assert t.snapshot(2.0) == {"people": ["甲"], "events": 3, "value_cny": 0.3, "age_s": 2.0}


def test_follows_batch_separately() -> None:
    t = _thanks(gift_batch_s=5)
    assert t.add(Thank(LineKind.FOLLOW, "甲"), 0.0) is False
    assert t.add(Thank(LineKind.FOLLOW, "乙"), 1.0) is True
    assert t.add(Thank(LineKind.FOLLOW, "甲"), 2.0) is True
    assert t.open and t.gifts is None and t.follows_ready(5.0)
    line = t.follow_line(5.0)
    assert line.text == "欢迎甲和乙的关注！" and line.kind is LineKind.FOLLOW and line.count == 3
    assert line.priority == 10 and line.deadline_mono == 20.0


@pytest.mark.parametrize(("level", "title"), [(1, "总督"), (2, "提督"), (3, "舰长"), (7, "舰长")])
def test_guards_are_thanked_on_their_own_line(level: int, title: str) -> None:
    c = _thanks().guard(Thank(LineKind.GUARD, "小李", guard_level=level, deadline=60.0))
    assert c.text == f"感谢小李开通{title}，欢迎上船！"
    assert c.kind is LineKind.GUARD and c.source is LineSource.THANKS and c.priority == 80 and c.deadline == 60.0
    assert c.key == ""  # never merged
