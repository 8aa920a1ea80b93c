"""A room with several products: each answered from its own facts (named, else the one on screen), the shop's shared
facts for the rest, the show's live values as facts (the price now, stock), an ended offer never voiced, and a figure
of one product never grounded by another's."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from broadcaster.brain import Brain
from broadcaster.brain.config import BrainConfig, ModerationConfig
from broadcaster.director.products import LiveProduct, OfferFacts, ProductAware, ProductFacts
from broadcaster.director.triage import TriagedLine
from broadcaster.lines import LineKind, LineSource
from danmaku.event import Event, EventKind, User

FLASH = OfferFacts("flash", "保温杯限时秒杀", "秒杀价")


def _write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "facts.md").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def shop(tmp_path: Path) -> dict:
    cup = _write(tmp_path / "cup", "# 暖暖保温杯\n\n- 日常价199元，直播间到手价169元。\n- 秒杀价：149元。\n- 容量500毫升。\n"
                                    "- 热水保温12小时。\n- 颜色有奶油白和曜石黑。\n")
    kettle = _write(tmp_path / "kettle", "# 小熊电热水壶\n\n- 日常价159元，直播间到手价129元。\n- 容量1.7升。\n"
                                          "- 烧开一壶水约5分钟。\n- 304不锈钢内胆。\n")
    shared = _write(tmp_path / "shop", "# 店铺须知\n\n- 下单后48小时内发货，默认中通快递。\n- 支持七天无理由退货。\n")
    state = {"cup": {"stock": None, "running": (), "ended": ()}, "kettle": {"stock": None, "running": (), "ended": ()}}
    prices = {"cup": ("直播间到手价", "169元"), "kettle": ("直播间到手价", "129元")}
    on = {"id": "cup"}

    def live(pid: str) -> LiveProduct:
        if pid not in state:
            raise ValueError(pid)
        st = state[pid]
        return LiveProduct(pid, on["id"] == pid, st["stock"], st["running"], st["ended"], prices[pid])

    catalogue = [ProductFacts("cup", "保温杯", ("杯子",), cup, "直播间到手价", (FLASH,)),
                 ProductFacts("kettle", "热水壶", ("水壶",), kettle, "直播间到手价", ())]
    return {"catalogue": catalogue, "live": live, "state": state, "prices": prices, "shared": shared, "on": on}


def _line(text: str, n: int) -> TriagedLine:
    ev = Event("t", "r", EventKind.COMMENT, User("u", "观众"), text)
    return TriagedLine(id=n, text=text, source=LineSource.ANSWER, event=ev, kind=LineKind.QUESTION)


async def _said(brain: Brain, text: str, n: int) -> str:
    return "".join(s.text for s in [s async for s in brain.answer(_line(text, n))])


async def _brain(shop: dict, backend=None) -> Brain:
    cfg = BrainConfig.model_validate({"kb": {"dir": str(shop["shared"]), "check_interval_s": 0}})
    brain = Brain("products", cfg, ModerationConfig(), backend=backend)
    await brain.start()
    await brain.set_products(shop["catalogue"], shop["live"])
    brain.present("cup")
    return brain


def test_the_brain_implements_the_products_interface() -> None:
    assert issubclass(Brain, ProductAware) or isinstance(Brain.__new__(Brain), ProductAware)


async def test_each_product_is_answered_from_its_own_facts_and_the_shop_from_its_own(shop: dict) -> None:
    brain = await _brain(shop)
    try:
        assert "169元" in await _said(brain, "多少钱", 1)  # the product on screen: its price now
        said = await _said(brain, "热水壶多少钱", 2)  # another product named: its own
        assert "129元" in said and "169" not in said
        assert "1.7升" in await _said(brain, "水壶容量多大", 3)
        assert "500毫升" in await _said(brain, "容量多大", 4)  # the cup again: on screen
        brain.present("kettle")
        said = await _said(brain, "容量多大", 5)
        assert "1.7升" in said and "500" not in said
        assert "48小时" in await _said(brain, "多久发货", 6)  # neither product says: the shop's facts do
    finally:
        await brain.close()


async def test_live_values_are_facts_and_an_ended_offer_is_never_said(shop: dict) -> None:
    brain = await _brain(shop)
    try:
        shop["state"]["cup"]["running"] = ((FLASH, 125.0),)
        shop["prices"]["cup"] = ("秒杀价", "149元")
        said = await _said(brain, "现在多少钱", 1)
        assert "149元" in said and "2分钟" in said  # the price the card shows, the offer with its time left
        shop["state"]["cup"]["running"] = ()
        shop["state"]["cup"]["ended"] = (FLASH,)
        shop["prices"]["cup"] = ("直播间到手价", "169元")
        said = await _said(brain, "秒杀价多少", 2)
        assert "149" not in said and "秒杀" not in said
        shop["state"]["cup"]["stock"] = 0
        assert "卖完" in await _said(brain, "还有货吗", 3)
        shop["state"]["cup"]["stock"] = 7
        assert "7件" in await _said(brain, "还剩几件", 4)
    finally:
        await brain.close()


class _Model:
    """A compliant model that says the other product's price for the one on screen."""

    name, model = "fake", "products"

    def __init__(self, text: str) -> None:
        self.text = text

    async def stream(self, messages: Sequence[dict[str, str]], *, max_tokens: int, temperature: float) -> AsyncIterator[str]:
        for i in range(0, len(self.text), 4):
            yield self.text[i : i + 4]

    async def close(self) -> None:
        return None


async def test_a_figure_of_one_product_is_never_grounded_by_anothers(shop: dict) -> None:
    brain = await _brain(shop, backend=_Model("这款杯子烧开一壶水约5分钟。"))  # the kettle's figure, said of the cup
    try:
        said = await _said(brain, "杯子怎么用比较好", 1)
        assert "5分钟" not in said
    finally:
        await brain.close()
