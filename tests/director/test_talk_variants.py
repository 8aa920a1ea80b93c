"""Variants, {a|b} alternatives and slots: parsing, masked sentence keys, the repeat window, drawing, capacity,
and reading said texts back with slots masked."""

from __future__ import annotations

import random

import pytest

from broadcaster.director.variants import (
    Drawer,
    Masker,
    RepeatWindow,
    Template,
    TemplateError,
    capacity,
    sentence_key,
    split_sentences,
)

THANKS = Template.parse("{谢谢|感谢}{names}送的{gifts}{！|，太暖心了！}")


def test_alternatives_and_slots_parse_and_render() -> None:
    t = Template.parse("{这款|这只}{product}能装{容量}，{喜欢的|想要的}朋友看看。")
    assert t.combos == 4 and t.slots == {"product", "容量"}
    text, keys = t.render((1, 0), {"product": "保温杯", "容量": "500毫升"})
    assert text == "这只保温杯能装500毫升，喜欢的朋友看看。"
    # static slots are part of the sentence; there is one sentence
    assert keys == ("这只保温杯能装500毫升喜欢的朋友看看",)
    # an unknown static slot is said as written; a dynamic one without a value makes the template unusable
    assert Template.parse("{nope}好").render((), {})[0] == "{nope}好"
    assert not Template.parse("现在有{viewers}位朋友").fillable({})
    assert Template.parse("现在有{viewers}位朋友").fillable({"viewers": "12"})


@pytest.mark.parametrize("bad", ["谢谢{names", "{a|{b}}", "好}"])
def test_broken_braces_are_errors_naming_where(bad: str) -> None:
    with pytest.raises(TemplateError, match=r"talk\.yaml: segments"):
        Template.parse(bad, "talk.yaml: segments[0].lines[1]")


def test_dynamic_slots_are_masked_in_keys() -> None:
    a = THANKS.render((0, 0), {"names": "小红", "gifts": "小心心"})
    b = THANKS.render((0, 0), {"names": "小明", "gifts": "辣条"})
    c = THANKS.render((1, 0), {"names": "小明", "gifts": "辣条"})
    assert a[0] != b[0] and a[1] == b[1] == ("谢谢{names}送的{gifts}",)
    assert c[1] != a[1]
    # punctuation and spaces do not make two sentences different to the ear
    assert sentence_key("下单吧！") == sentence_key("下单 吧。")
    assert split_sentences("大家好！！欢迎～今天……") == ["大家好！！", "欢迎～", "今天……"]


def test_drawer_never_repeats_inside_the_window_while_material_lasts() -> None:
    window = RepeatWindow(window_s=600)
    drawer = Drawer(window, random.Random(3))
    assert capacity([THANKS], {}) == 4
    said = []
    for i in range(4):  # four sayings, 100 s apart: all different
        d = drawer.draw([THANKS], {"names": f"u{i}", "gifts": "花"}, 100.0 * i)
        assert d is not None and not d.repeat
        said.append(d.keys)
    assert len(set(said)) == 4
    # the fifth inside the window must repeat: it is the one said longest ago, and it is counted
    d = drawer.draw([THANKS], {"names": "u5", "gifts": "花"}, 400.0)
    assert d is not None and d.repeat and d.keys == said[0]
    assert window.repeats_total == 1 and window.repeats_in_window(400.0) == 1
    assert drawer.draw([THANKS], {"names": "u", "gifts": "花"}, 401.0, fresh_only=True) is None
    # once the window has passed, the first saying is fresh again
    d = drawer.draw([THANKS], {"names": "u6", "gifts": "花"}, 701.0)
    assert d is not None and not d.repeat and d.keys == said[1]
    assert window.repeats_in_window(1001.0) == 0  # the repeat at 400 s left the window
    assert window.distinct_last_hour(701.0) == 4


def test_the_window_forgets_after_the_hour_and_adopts_an_older_one() -> None:
    w = RepeatWindow(window_s=60, history_s=120)
    w.note(["a", "b"], 0.0)
    w.note(["c"], 100.0)
    assert w.distinct_last_hour(100.0) == 3
    w.note(["d"], 200.0)
    assert w.distinct_last_hour(200.0) == 2 and "a" not in w.last  # memory stays bounded
    new = RepeatWindow(window_s=60)
    new.adopt(w)
    assert not new.free("d", 210.0) and new.sentences_total == 4


def test_capacity_counts_what_one_window_can_hold() -> None:
    shared = [Template.parse("A。共同的一句。"), Template.parse("B。共同的一句。")]
    assert capacity(shared, {}) == 1  # the shared sentence can be said once per window
    assert capacity([Template.parse("{一|二|三}。{甲|乙}。")], {}) == 2
    assert capacity([Template.parse("现在有{viewers}位朋友在看。")], {}) == 1  # dynamic: one saying


def test_masker_reads_said_texts_back_with_slots_masked() -> None:
    cta = Template.parse("{喜欢的|想要的}朋友点下方小黄车。")
    m = Masker([THANKS, cta, Template.parse("这款{product}很好。")], {"product": "保温杯"})
    said = "感谢小明送的辣条，太暖心了！想要的朋友点下方小黄车。"
    assert m.mask(said) == "感谢{names}送的{gifts}，太暖心了！想要的朋友点下方小黄车。"
    assert m.keys(said) == ["感谢{names}送的{gifts}太暖心了", "想要的朋友点下方小黄车"]
    assert m.keys("这款保温杯很好。") == ["这款保温杯很好"]
    # what no template says counts as said
    assert m.keys("你好呀。谢谢阿喵送的花！") == ["你好呀", "谢谢{names}送的{gifts}"]


def test_masker_prefers_the_specific_template_over_a_slot_that_swallows_words() -> None:
    plain = Template.parse("谢谢{names}送的{gifts}！")
    m = Masker([plain, THANKS], {})
    assert m.keys("谢谢小红送的花，太暖心了！") == ["谢谢{names}送的{gifts}太暖心了"]
    assert m.keys("谢谢小红送的花！") == ["谢谢{names}送的{gifts}"]
