"""A room that sells several products, on the director's side: the price read from each product's facts, one product
presented at a time (running order, "present X", "next") at line boundaries, each product's lines saying only its
own figures, offers named only while they run, stock 0 stopping a product's pitch, state kept across a reload."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from director_helpers import Clock, director, ev

from broadcaster.config import ConfigError, parse_config
from broadcaster.director.desk import ProductLine
from broadcaster.director.products import ProductsError, read_fact, unstated_figures
from danmaku.event import EventKind

FACTS = {
    "cup": "# 保温杯\n\n- 名称：暖暖保温杯\n- 日常价：199元\n- 直播间到手价：169元\n- 限时秒杀价：149元\n- 容量：500毫升\n"
           "- 保温：热水保温12小时\n",
    "kettle": "- 直播间到手价：129元\n- 容量：1.7升\n- 功率：1800瓦\n- 一壶水大约5分钟烧开\n",
    "towel": "| 项目 | 内容 |\n|---|---|\n| 直播间到手价 | 59元，一套两条 |\n| 尺寸 | 70厘米乘140厘米 |\n",
}
TALK = {
    "cup": ["{product}能保温12小时。", "容量500毫升。", "{price_label}{price}，喜欢的下单。", "{offer}，还剩{offer_left}！",
            "还剩{stock}件。"],
    "kettle": ["{product}容量1.7升。", "1800瓦，大约5分钟烧开。", "现在只要{price}。"],
    "towel": ["{product}尺寸70厘米乘140厘米。", "{price}一套两条。"],
}
FIGURES = re.compile(r"\d+(?:\.\d+)?")


def _write(tmp: Path, pid: str, talk: list[str] | None = None) -> dict[str, Any]:
    folder = tmp / pid
    folder.mkdir(exist_ok=True)
    (folder / "facts.md").write_text(FACTS[pid], encoding="utf-8")
    segs = [{"name": "pitch", "lines": talk if talk is not None else TALK[pid]}]
    (folder / "talk.yaml").write_text(__import__("yaml").safe_dump({"segments": segs}, allow_unicode=True),
                                      encoding="utf-8")
    return {"id": pid, "name": {"cup": "暖暖保温杯", "kettle": "轻语电热水壶", "towel": "云朵浴巾"}[pid],
            "facts": str(folder / "facts.md"), "price_key": "直播间到手价", "talk": str(folder / "talk.yaml")}


def _products(tmp: Path, **over: Any) -> dict[str, Any]:
    items = [_write(tmp, pid) for pid in ("cup", "kettle", "towel")]
    items[0]["offers"] = [{"id": "flash", "text": "限时秒杀", "minutes": 2, "price_key": "限时秒杀价"}]
    return {"items": items, "minutes": 1, **over}


def _picks(d, clock: Clock, n: int, step: float = 6.0) -> list:
    """n lines, each said at once: the clock moves `step` seconds a line (the stage's part, simulated)."""
    out = []
    for _ in range(n):
        line = d.pick()
        if line is not None:
            out.append(line)
            d.line_done(line)
        clock.t += step
    return out


def test_the_price_is_read_from_the_facts_by_its_key(tmp_path: Path) -> None:
    md = tmp_path / "a.md"
    md.write_text("# 价格\n\n- **直播间到手价**：169元，两只装318元\n直播间到手价是169元。\n", encoding="utf-8")
    assert read_fact(md, "直播间到手价") == ("169元", md)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "p.yaml").write_text("价格:\n  日常价: 199元\n  直播间到手价: 169元\n", encoding="utf-8")
    assert read_fact(tmp_path / "b", "直播间到手价")[0] == "169元"
    (tmp_path / "b" / "x.md").write_text("- 直播间到手价：99元\n", encoding="utf-8")
    with pytest.raises(ProductsError, match=r"different values.*169元.*99元|different values.*99元.*169元"):
        read_fact(tmp_path / "b", "直播间到手价")
    with pytest.raises(ProductsError, match="'会员价' is not stated"):
        read_fact(md, "会员价")
    assert unstated_figures("容量{price}500毫升，保温24小时", "500毫升 12小时") == ["24"]


def test_config_errors_name_the_key_and_the_file(tmp_path: Path) -> None:
    room = {"id": "r", "director": {"products": _products(tmp_path)}}
    cfg = parse_config({"rooms": [room]})
    assert [p.id for p in cfg.rooms[0].director.products.items] == ["cup", "kettle", "towel"]
    bad = {"id": "r", "director": {"products": _products(tmp_path)}}
    bad["director"]["products"]["items"][1]["price_key"] = "会员价"
    with pytest.raises(ConfigError) as exc:
        parse_config({"rooms": [bad]})
    assert "rooms[0].director.products.items[1].price_key" in str(exc.value)
    assert "'会员价' is not stated" in str(exc.value) and "kettle" in str(exc.value)
    twice = {"id": "r", "director": {"products": _products(tmp_path)}}
    twice["director"]["products"]["items"][2]["id"] = "cup"
    with pytest.raises(ConfigError, match="product id 'cup' is used twice"):
        parse_config({"rooms": [twice]})
    inside = {"id": "r", "director": {"products": _products(tmp_path)}}
    inside["director"]["products"]["items"][0]["facts"] = str(tmp_path / "cup")
    with pytest.raises(ConfigError, match=r"items\[0\]: talk .* is inside the facts folder"):
        parse_config({"rooms": [inside]})
    gone = {"id": "r", "director": {"products": _products(tmp_path)}}
    gone["director"]["products"]["items"][0]["image"] = str(tmp_path / "nope.png")
    with pytest.raises(ConfigError, match=r"items\[0\]\.image: file .*nope.png.* does not exist"):
        parse_config({"rooms": [gone]})


def test_a_product_line_with_a_figure_its_facts_do_not_state_is_refused(tmp_path: Path) -> None:
    products = _products(tmp_path)
    products["items"][1] = _write(tmp_path, "kettle", ["{product}只要99元！"])
    with pytest.raises(ProductsError, match=r"kettle.*talk.yaml.*says 99.*facts of 'kettle'"):
        director("r", Clock(), products=products)


def test_one_product_at_a_time_in_the_running_order(tmp_path: Path) -> None:
    clock = Clock()
    d = director("r", clock, products=_products(tmp_path))
    lines = _picks(d, clock, 40, step=5.0)  # 200 s: one minute a product, round and round
    assert all(isinstance(x, ProductLine) for x in lines)
    turns = [x.product for x in lines if x.presents]
    assert turns == ["cup", "kettle", "towel", "cup"]
    # Between two presenting lines, every product line is about the product presented last.
    current = None
    for x in lines:
        current = x.product if x.presents else current
        assert x.product in ("", current), (x.text, current)
    assert d.products.presented == 4 and d.snapshot()["products"]["on_screen"] == "cup"


def test_every_figure_a_product_line_says_is_its_own(tmp_path: Path) -> None:
    clock = Clock()
    d = director("r", clock, products=_products(tmp_path))
    d.products.start_offer("cup", "flash")
    lines = _picks(d, clock, 60, step=4.0)
    about = {pid: [x for x in lines if x.product == pid] for pid in FACTS}
    assert all(about.values()), {k: len(v) for k, v in about.items()}
    for pid, said in about.items():
        stated = set(FIGURES.findall(FACTS[pid]))
        others = set().union(*(set(FIGURES.findall(FACTS[o])) for o in FACTS if o != pid)) - stated
        for x in said:
            figures = set(FIGURES.findall(x.text))
            assert figures <= stated, (pid, x.text)
            assert not figures & others, (pid, x.text)
    cup_prices = {x.text for x in about["cup"] if "元" in x.text}
    assert any("149元" in t for t in cup_prices), cup_prices  # the offer's price while it ran (2 minutes)
    assert any("129元" in x.text for x in about["kettle"]) and any("59元" in x.text for x in about["towel"])


def test_present_takes_effect_at_the_next_line_boundary_before_waiting_questions(tmp_path: Path) -> None:
    clock = Clock()
    d = director("r", clock, products=_products(tmp_path, order="manual"))
    first = _picks(d, clock, 3)
    assert first[0].presents and first[0].product == "cup"
    d.offer(ev(clock, EventKind.COMMENT, "这个多少钱？", user="a", msg_id="q1"))
    d.say("欢迎新朋友！")
    d.products.present("towel")
    operator, switch, answer = d.pick(), d.pick(), d.pick()
    assert operator.text == "欢迎新朋友！"  # operator lines still go first
    assert isinstance(switch, ProductLine) and switch.presents and switch.product == "towel"
    assert switch.priority == d.cfg.operator.priority
    assert answer.text == "这个多少钱？"
    assert d.products.on_screen == "towel"
    later = _picks(d, clock, 10)
    assert {x.product for x in later} <= {"towel", ""}  # manual: it stays on screen
    d.products.next()
    assert d.pick().product == "cup"  # the next in the list (round to the first)


def test_stock_zero_stops_that_products_pitch(tmp_path: Path) -> None:
    clock = Clock()
    d = director("r", clock, products=_products(tmp_path, minutes=60))
    _picks(d, clock, 2)
    assert d.products.on_screen == "cup"
    d.products.set_stock("cup", 3)
    stock_lines = [x.text for x in _picks(d, clock, 10) if "件" in x.text]
    assert stock_lines and all("还剩3件" in t for t in stock_lines)
    d.products.set_stock("cup", 0)
    after = _picks(d, clock, 12)
    assert after[0].presents and after[0].product == "kettle"  # the running order moves on at once
    assert all(x.product != "cup" for x in after)
    # Sold out everywhere: no product talk at all, and no product comes on screen by itself.
    d.products.set_stock("kettle", 0)
    d.products.set_stock("towel", 0)
    rest = _picks(d, clock, 10)
    assert all(x.product == "" or x.presents for x in rest)
    d.products.present("cup")  # the operator may still show a sold-out product
    shown = d.pick()
    assert shown.presents and shown.product == "cup"
    with pytest.raises(ValueError, match="stock must be a whole number"):
        d.products.set_stock("cup", -1)
    with pytest.raises(ValueError, match="no product 'mug'"):
        d.products.present("mug")


def test_an_offer_is_named_only_while_it_runs_with_time_to_spare(tmp_path: Path) -> None:
    clock = Clock()
    d = director("r", clock, products=_products(tmp_path, minutes=60))
    _picks(d, clock, 2)
    before = _picks(d, clock, 10)
    assert not any("限时秒杀" in x.text for x in before)  # not started: its lines wait
    end = d.products.start_offer("cup", "flash")
    assert d.products.price_now("cup") == ("限时秒杀价", "149元")
    card, left = d.products.card("cup")
    assert card.offer == "限时秒杀" and card.price == "149元" and left == pytest.approx(120.0)
    during = []
    while clock.t < end + 60:
        during += _picks(d, clock, 1, step=3.0)
        d.products.tick()
    named = [x for x in during if "限时秒杀" in x.text]
    assert named and all(x.offer == "flash" for x in named)
    margin = d.products.cfg.offer_margin_s
    for x in named:  # chosen only when it would end well before the offer does
        assert x.created_mono + len(x.text) / 4.5 + margin <= end, (x.text, end - x.created_mono)
        assert x.deadline_mono <= end
    assert not d.products.offer_running("cup", "flash") and ("cup", "flash") in d.products.ended
    assert d.products.price_now("cup") == ("直播间到手价", "169元")
    tail = _picks(d, clock, 10)
    assert not any("限时秒杀" in x.text or "149" in x.text for x in tail)
    live = d.products.live("cup")
    assert [o.id for o in live.ended] == ["flash"] and live.running == () and live.price == ("直播间到手价", "169元")


def test_the_brain_is_given_each_products_facts_apart(tmp_path: Path) -> None:
    clock = Clock()
    d = director("r", clock, products=_products(tmp_path))
    cat = d.products.catalogue()
    assert [(p.id, p.price_key, p.facts.parent.name) for p in cat] == [("cup", "直播间到手价", "cup"),
                                                                       ("kettle", "直播间到手价", "kettle"),
                                                                       ("towel", "直播间到手价", "towel")]
    assert cat[0].offers[0].price_key == "限时秒杀价"
    _picks(d, clock, 1)
    assert d.products.live("cup").on_screen and not d.products.live("kettle").on_screen
    assert d.products.live("towel").price == ("直播间到手价", "59元")


def test_a_reload_keeps_the_product_on_screen_offers_and_stock(tmp_path: Path) -> None:
    from broadcaster.show import _carry_over

    clock = Clock()
    old = director("r", clock, products=_products(tmp_path, minutes=5))
    _picks(old, clock, 2)
    old.products.present("kettle")
    _picks(old, clock, 2)
    old.products.start_offer("cup", "flash")
    old.products.set_stock("towel", 7)
    new = director("r", clock, products=_products(tmp_path, minutes=5))
    _carry_over(old, new)
    assert new.products.on_screen == "kettle" and new.products.turn_started == old.products.turn_started
    assert new.products.offer_running("cup", "flash") and new.products.items["towel"].stock == 7
    assert not new.pick().presents  # no second intro: the turn goes on
