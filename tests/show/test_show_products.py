"""A room that sells three products, on air: the card goes up through the stage port on the frame of the first
sentence about its product; read back from the recording and the audit log, each product is presented in its turn,
every price said or shown is that product's own, "present" by the admin API takes effect at the next line
boundary, and an offer that ended is never voiced."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import av
import numpy as np
import pytest
import yaml
from aiohttp import ClientSession, web

from broadcaster.admin import create_app
from broadcaster.config import AdminConfig, RoomConfig
from broadcaster.lines import Line, LineSource
from broadcaster.room import Room
from broadcaster.stage import Stage, StageEventKind
from broadcaster.stage_port import StagePort
from danmaku.event import Event, EventKind, User
from renderer.base import FrameState
from renderer.card import Card
from renderer.factory import build_avatar
from tests.support.media import tone_utterance

FPS, RATE = 25, 44100
W, H = 640, 360
TOKEN = "products-test-token"
FACTS = {
    "cup": "- 名称：暖暖保温杯\n- 直播间到手价：169元\n- 限时秒杀价：149元\n- 容量：500毫升\n- 热水保温12小时\n",
    "kettle": "- 名称：轻语电热水壶\n- 直播间到手价：129元\n- 容量：1.7升\n- 大约5分钟烧开\n",
    "towel": "- 名称：云朵浴巾\n- 直播间到手价：59元，一套两条\n- 尺寸：70厘米乘140厘米\n",
}
NAMES = {"cup": "暖暖保温杯", "kettle": "轻语电热水壶", "towel": "云朵浴巾"}
TALK = {
    "cup": ["{offer}，还剩{offer_left}！", "{price_label}{price}。", "容量500毫升。"],
    "kettle": ["{product}容量1.7升。", "{price_label}{price}。", "大约5分钟烧开。"],
    "towel": ["{product}七十乘一百四十。", "{price_label}{price}，一套两条。"],
}
FIGURES = re.compile(r"\d+(?:\.\d+)?")


# -- the stage: one verb, the frame of the first sentence ----------------------------------------------

def _card(pid: str, price: str = "1元") -> Card:
    return Card(pid, pid, "价", price)


def test_the_card_switches_on_the_frame_its_lines_first_sentence_starts() -> None:
    stage = Stage(FPS, RATE)
    a, b, c = _card("a"), _card("b"), _card("c")
    stage.show_card(a)
    assert stage.tick(0)[0].card is a  # no line: the next frame
    talking = Line("还在讲上一件。", LineSource.SCRIPT)
    stage.push(tone_utterance(0.4, RATE, FPS, line=talking))
    stage.end_line(talking)
    intro = Line("接下来这件。", LineSource.SCRIPT)
    stage.show_card(b, intro)
    stage.push(tone_utterance(0.4, RATE, FPS, line=intro))
    stage.end_line(intro)
    cards, starts = [], {}
    for n in range(1, 40):
        state, _ = stage.tick(n)
        cards.append(state.card)
        cur = stage.current
        if cur is not None:
            starts.setdefault(cur.line.id, n)
    first = starts[intro.id]
    assert all(x is a for x in cards[: first - 1]) and all(x is b for x in cards[first - 1:])
    # A line that never plays (cut before its first sentence): its card goes up at its end.
    never = Line("不会说出来。", LineSource.SCRIPT)
    stage.show_card(c, never)
    stage.interrupt_line(never)
    assert stage.tick(40)[0].card is c
    # A line already over: at once.
    stage.show_card(a, talking)
    assert stage.tick(41)[0].card is a
    stage.show_card(None)
    assert stage.tick(42)[0].card is None


def test_the_port_sets_the_countdown_on_the_stage_timeline() -> None:
    stage = Stage(FPS, RATE)
    port = StagePort(stage, lambda: None, lambda: [])
    for n in range(50):
        stage.tick(n)
    port.show_card(_card("a"), offer_left_s=10.0)
    shown = stage.tick(50)[0].card
    assert shown.ends_at == pytest.approx(50 / FPS + 10.0) and shown.countdown(50 / FPS) == "00:10"
    assert shown.countdown(60 / FPS + 10.0) == "00:00"


# -- a room on air ---------------------------------------------------------------------------------------

def _products(tmp: Path) -> dict[str, Any]:
    items = []
    for pid in ("cup", "kettle", "towel"):
        folder = tmp / pid
        folder.mkdir()
        (folder / "facts.md").write_text(FACTS[pid], encoding="utf-8")
        (folder / "talk.yaml").write_text(yaml.safe_dump({"segments": [{"name": "pitch", "lines": TALK[pid]}]},
                                                         allow_unicode=True), encoding="utf-8")
        items.append({"id": pid, "name": NAMES[pid], "facts": str(folder / "facts.md"), "price_key": "直播间到手价",
                      "talk": str(folder / "talk.yaml"), "intro": ["这是{product}，{price}。"]})
    items[0]["offers"] = [{"id": "flash", "text": "限时秒杀", "minutes": 0.3, "price_key": "限时秒杀价"}]
    return {"items": items, "minutes": 0.3, "offer_margin_s": 1.0}


def _audit(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


async def _until(pred, timeout: float, what: str) -> None:
    end = asyncio.get_running_loop().time() + timeout
    while not pred():
        assert asyncio.get_running_loop().time() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def _frames(path: Path, wanted: set[int]) -> dict[int, np.ndarray]:
    """The decoded recording's frames with these numbers (frame n of the stage is the n-th frame recorded)."""
    out: dict[int, np.ndarray] = {}
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            n = round(float(frame.pts * frame.time_base) * FPS)
            if n in wanted:
                out[n] = frame.to_ndarray(format="bgr24")
    return out


class _Daemon:
    """What the admin app needs of the daemon: its rooms (the real Room here) and its config."""

    def __init__(self, room: Room) -> None:
        self.rooms = {room.id: room}
        self.config = None

    async def reload(self) -> dict:
        return {}

    async def plan(self) -> dict:
        return {}


@pytest.mark.slow
async def test_a_three_product_room_read_back_from_its_recording_and_audit(tmp_path: Path) -> None:
    cfg = RoomConfig.model_validate({
        "id": "shop", "video": {"width": W, "height": H, "fps": FPS},
        "outputs": [{"type": "record", "path": str(tmp_path / "shop.flv")}],
        "audit": {"path": str(tmp_path / "audit.jsonl")},
        "director": {"talk": {"seed": 3, "gap_range_s": [0.2, 0.5]}, "products": _products(tmp_path)},
    })
    room = Room(cfg)
    ends: dict[int, Any] = {}
    starts: list[tuple[int, int]] = []  # (frame, line id) of each line's first sentence
    runner = web.AppRunner(create_app(_Daemon(room), AdminConfig(), token=TOKEN))
    await room.start()
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    api = f"http://127.0.0.1:{port}/api/rooms/shop/products"
    headers = {"Authorization": f"Bearer {TOKEN}"}

    def seen(ev) -> None:
        if ev.kind == StageEventKind.LINE_END:
            ends[ev.line.id] = ev
        elif ev.kind == StageEventKind.START and ev.utterance is not None and ev.utterance.index == 0:
            starts.append((ev.frame, ev.line.id))

    room.port.subscribe(seen)
    desk = room.show.director.products
    try:
        async with ClientSession(headers=headers) as http:
            async with http.post(f"{api}/cup/offers/flash/start") as resp:
                assert resp.status == 200, await resp.text()
            await _until(lambda: desk.on_screen == "kettle", 60, "the running order to present the kettle")
            # while the kettle is on screen, a viewer asks about the cup by its kind: the cup's price answers
            room.show.offer(Event("test", "shop", EventKind.COMMENT, User("v1", "小鹿"), "保温杯多少钱呀",
                                  received_mono=asyncio.get_running_loop().time()))

            def kettle_speaking() -> bool:
                cur = room.stage.current
                return cur is not None and getattr(cur.line, "product", "") == "kettle" and not cur.line.presents

            await _until(kettle_speaking, 30, "a kettle line on air")
            playing, api_frame = room.stage.current.line, room.stage.frame
            async with http.post(f"{api}/present", json={"product": "towel"}) as resp:
                body = await resp.json()
                assert resp.status == 200 and body["result"] == "towel", body
            async with http.post(f"{api}/present", json={"product": "mug"}) as resp:
                assert resp.status == 409 and "no product 'mug'" in (await resp.json())["error"]
            async with http.get(api) as resp:
                view = await resp.json()
                assert view["products"]["wanted"] == "towel" and view["products"]["on_screen"] == "kettle"
            await _until(lambda: desk.on_screen == "towel", 30, "towel presented")
            await _until(lambda: desk.on_screen == "cup", 60, "the order to come round to the cup")
            await _until(lambda: any(r.get("product") == "cup" and r.get("line_source") == "card"
                                     for r in _audit(tmp_path / "audit.jsonl")[3:]), 30, "the cup's card again")
    finally:
        await runner.cleanup()
        await room.stop()

    records = _audit(tmp_path / "audit.jsonl")
    updates = [r for r in records if r["line_source"] == "card"]
    cards = [r for r in updates if r["switch"]]
    lines = [r for r in records if r["line_source"] == "script"]
    offers = [r for r in records if r["line_source"] == "offer"]
    # The question about the cup, asked while the kettle was on screen, got the cup's price now and not the kettle's.
    asked = next(r for r in records if r.get("asked") == "保温杯多少钱呀")
    assert ("169元" in asked["text"] or "149元" in asked["text"]) and "129" not in asked["text"], asked
    # Each product presented in its turn; towel came early, by the API.
    assert [c["product"] for c in cards] == ["cup", "kettle", "towel", "cup"]
    # Every price in speech is the product's own (checked against its facts), never another's figure.
    for r in lines:
        pid = r["product"]
        if not pid:
            continue
        said = set(FIGURES.findall(" ".join(r["sentences"])))
        assert said <= set(FIGURES.findall(FACTS[pid])), r
    # Every price on a card is the product's own price now: the offer's while it runs, its own otherwise.
    started_at = next(o["frame"] for o in offers if o["state"] == "started")
    ended_at = next(o["frame"] for o in offers if o["state"] == "ended")
    for c in updates:
        running = c["product"] == "cup" and started_at <= c["frame"] <= ended_at + 1 and c["offer"]
        want = "149元" if running else {"cup": "169元", "kettle": "129元", "towel": "59元"}[c["product"]]
        assert c["price"] == want, c
    assert any(c["price"] == "149元" and c["offer"] == "限时秒杀" for c in updates)  # the offer's, with its countdown
    # The card went up on the frame of the first sentence of its product's first line.
    by_frame = dict(starts)
    started = {lid for _, lid in starts}
    for c in cards:
        if c["line"] not in started and c["frame"] > max(by_frame):
            continue  # the room stopped as this line began: its START reached the audit, not this test's subscriber
        assert c["frame"] in by_frame and by_frame[c["frame"]] == c["line"], c
    # "present towel" came while a kettle line played: that line ended whole, and the next line to start was the
    # towel's first.
    assert not ends[playing.id].cut and ends[playing.id].played >= 1
    towel = next(c for c in cards if c["product"] == "towel")
    after = [(f, lid) for f, lid in starts if f > api_frame]
    assert after[0] == (towel["frame"], towel["line"]) and towel["frame"] >= ends[playing.id].frame
    # The offer was voiced while it ran and never after it ended.
    named = [r for r in lines if "限时秒杀" in " ".join(r["sentences"]) or "149" in " ".join(r["sentences"])]
    assert named, "the offer was never voiced"
    assert all(r["frames"][-1] <= ended_at for r in named), (named, ended_at)
    # The recording shows each card from its frame on, and the one before until then (the digits aside).
    ref = build_avatar(cfg.avatar, W, H, FPS)

    def as_card(c: dict) -> Card:
        return Card(c["product"], c["name"], c["price_label"], c["price"], None, offer=c["offer"],
                    ends_at=0.0 if c["offer"] else None, stock=c["stock"])

    def on_screen(n: int) -> Card | None:  # the latest card that went up at or before frame n
        up = [c for c in updates if c["frame"] <= n]
        return as_card(max(up, key=lambda c: c["frame"])) if up else None

    frames = _frames(tmp_path / "shop.flv", {c["frame"] + d for c in cards for d in (-1, 0)})
    everyone = {c["product"]: as_card(c) for c in updates}
    for c in cards:
        for n in (c["frame"], c["frame"] - 1):
            want = on_screen(n)
            if want is None:
                continue
            region = _static_region(ref.overlays.card, want)
            got = frames[n][region].astype(np.int16)
            err = float(np.abs(got - _reference(ref, want, n)[region].astype(np.int16)).mean())
            assert err < 6.0, (n, want.product, err)
            for pid, other in everyone.items():
                if pid != want.product:
                    off = float(np.abs(got - _reference(ref, other, n)[region].astype(np.int16)).mean())
                    assert off > 3 * err, (n, want.product, pid, err, off)


def _static_region(overlay, card: Card) -> tuple[slice, slice]:
    """The card's box above its countdown row (the rows below hold the digits, which change each second)."""
    pieces = overlay.pieces(card)
    top = pieces[0][0]
    return slice(top.y, top.y + top.h), slice(top.x, top.x + top.w)


def _reference(avatar, card: Card, n: int) -> np.ndarray:
    return avatar.render(FrameState(n=n, fps=FPS, card=card))


async def test_a_reload_that_edits_a_price_keeps_the_product_on_screen_and_updates_its_card(tmp_path: Path) -> None:
    from broadcaster.config import parse_config
    from tests.support.media import CardAvatar

    products = _products(tmp_path)

    def config() -> RoomConfig:
        return parse_config({"rooms": [{"id": "shop", "video": {"width": 160, "height": 96, "fps": FPS},
                                        "director": {"products": products}}]}).rooms[0]

    first = config()
    room = Room(first, avatar=CardAvatar(160, 96))
    await room.start()
    try:
        desk = room.show.director.products
        await _until(lambda: room.stage.card is not None and room.stage.card.product == "cup", 30, "the cup's card")
        assert room.stage.card.price == "169元"
        room.product("stock", {"product": "towel", "stock": 4})
        (tmp_path / "cup" / "facts.md").write_text(FACTS["cup"].replace("169元", "159元"), encoding="utf-8")
        assert await room.apply(config()) == ["director"]
        assert room.show.director.products is not desk  # a new desk, built from the edited facts ...
        new = room.show.director.products
        assert new.on_screen == "cup" and new.items["towel"].stock == 4  # ... keeping what was decided live
        await _until(lambda: room.stage.card.price == "159元", 10, "the card to show the edited price")
    finally:
        await room.stop()


async def test_a_products_rooms_talk_gets_paraphrases_written_ahead_and_closed_with_the_room(tmp_path: Path) -> None:
    """The show starts the talk's paraphraser over brain.llm (here a loopback OpenAI-compatible fake) and closes it."""
    from tests.brain.llm_fakes import FakeOpenAI
    from tests.support.media import CardAvatar

    llm = await FakeOpenAI(script=lambda req: ["容量500毫升，", "很实用。"]).start()
    cfg = RoomConfig.model_validate({
        "id": "shop", "video": {"width": 160, "height": 96, "fps": FPS},
        "brain": {"llm": {"backend": "openai", "base_url": llm.base_url, "model": "fake"}},
        "director": {"talk": {"paraphrase": {"enabled": True, "per_line": 1, "points": 0}},
                     "products": _products(tmp_path)},
    })
    room = Room(cfg, avatar=CardAvatar(160, 96))
    try:
        await room.start()
        paraphraser = room.show._paraphraser[0]
        assert room.show.director.talk.paraphraser is paraphraser
        await _until(lambda: llm.requests, 30, "the paraphraser to ask the LLM")
    finally:
        await room.stop()
        await llm.stop()
    assert room.show._paraphraser is None
