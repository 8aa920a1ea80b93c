"""The product card: placed clear of the face, subtitles, banner and AI label in landscape and portrait; composed
once per card, only its countdown digits redrawn each second; Chinese drawn with the bundled font."""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np
import pytest

from renderer.base import FrameState, Viseme
from renderer.card import Card
from renderer.config import AvatarConfig, IdleConfig
from renderer.factory import build_avatar
from renderer.text import find_cjk_font, packaged_cjk_font

FPS = 25
LONG_SUB = "这款保温杯内胆是316不锈钢，热水能保温十二个小时，上班上学出差旅行带着都刚刚好，大家可以放心下单。"
LONG_BANNER = "一位名字很长很长的观众朋友：请问这个杯子能不能放进洗碗机里面洗，会不会掉漆？"
Box = tuple[int, int, int, int]  # y0, y1, x0, x1


@pytest.fixture(scope="module")
def product_png(tmp_path_factory: pytest.TempPathFactory) -> Path:
    img = np.zeros((300, 240, 4), np.uint8)
    cv2.rectangle(img, (40, 30), (200, 270), (60, 140, 230, 255), -1)
    path = tmp_path_factory.mktemp("card") / "product.png"
    cv2.imwrite(str(path), img)
    return path


def _card(image: Path | None, **kw) -> Card:
    base = {"product": "cup", "name": "暖暖保温杯", "price_label": "直播间到手价", "price": "169元", "image": image,
            "offer": "限时秒杀，每场限量50单", "ends_at": 90.0, "stock": 23}
    return Card(**{**base, **kw})


def _cfg(kind: str, face_photo, sprite_dir, **kw) -> AvatarConfig:
    path = {"portrait": face_photo[0], "sprite": sprite_dir, "builtin": None}[kind]
    return AvatarConfig(kind=kind, path=path, **kw)


def _changed(a: np.ndarray, b: np.ndarray, thresh: int = 8) -> Box:
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2) > thresh
    ys, xs = np.nonzero(diff)
    assert ys.size, "no pixel changed"
    return int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1


def _card_box(av, card: Card, t: float) -> Box:
    placed = av.overlays.card.pieces(card) + av.overlays.card.countdown(card, t)
    assert placed, "no card drawn"
    y0 = min(la.y for la, _, _ in placed)
    x0 = min(la.x for la, _, _ in placed)
    return y0, max(la.y + la.h for la, _, _ in placed), x0, max(la.x + la.w for la, _, _ in placed)


def _meets(a: Box, b: Box) -> bool:
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


def _grow(b: Box, px: int) -> Box:
    return b[0] - px, b[1] + px, b[2] - px, b[3] + px


@pytest.mark.parametrize("kind", ["builtin", "portrait", "sprite"])
@pytest.mark.parametrize(("w", "h"), [(1280, 720), (720, 1280)])
def test_card_keeps_clear_of_face_subtitles_banner_and_label(kind, w, h, face_photo, sprite_dir, product_png,
                                                             tmp_path) -> None:
    still = IdleConfig(blink_min_s=30, blink_max_s=30, sway_px=0, sway_deg=0, breath=0, speak_nod=0)
    av = build_avatar(_cfg(kind, face_photo, sprite_dir, idle=still), w, h, FPS)
    assert av.overlays.card is not None and av.overlays.card.rect is not None, "no room for a card"
    card = _card(product_png)
    card_box = _card_box(av, card, 0.0)
    # Where each of them is drawn, found from the pixels they change (not from the layout code that placed the card).
    neutral = av.render(FrameState(n=0, fps=FPS))
    face = [_changed(neutral, av.render(FrameState(n=0, fps=FPS, openness=1.0, viseme=v, speaking=True)))
            for v in (Viseme.A, Viseme.O, Viseme.E)]
    subtitle = _changed(neutral, av.render(FrameState(n=0, fps=FPS, subtitle=LONG_SUB)))
    banner = _changed(neutral, av.render(FrameState(n=0, fps=FPS, banner=LONG_BANNER)))
    no_label = build_avatar(_cfg(kind, face_photo, sprite_dir, idle=still, overlays={"label": {"enabled": False}}),
                            w, h, FPS)
    label = _changed(no_label.render(FrameState(n=0, fps=FPS)), neutral)
    margin = round(0.02 * h)
    for name, box in [*(("mouth", b) for b in face), ("subtitle", subtitle), ("banner", banner), ("label", label)]:
        assert not _meets(_grow(box, margin), card_box), (name, box, card_box)
    # The head as drawn (the mouth box grown to the face), and the whole card as drawn: nothing but the card changes.
    shown = av.render(FrameState(n=0, fps=FPS, card=card, subtitle=LONG_SUB, banner=LONG_BANNER))
    plain = av.render(FrameState(n=0, fps=FPS, subtitle=LONG_SUB, banner=LONG_BANNER))
    assert _changed(plain, shown, thresh=0) == card_box or _meets(_changed(plain, shown, thresh=0), card_box)
    outside = np.ones((h, w), bool)
    outside[card_box[0]:card_box[1], card_box[2]:card_box[3]] = False
    assert np.array_equal(shown[outside], plain[outside]), "the card changed pixels outside its own box"
    cv2.imwrite(str(tmp_path / f"card_{kind}_{w}x{h}.png"), shown)


@pytest.mark.parametrize(("w", "h"), [(1280, 720), (720, 1280)])
def test_card_composed_once_and_only_its_digits_change_each_second(w, h, product_png) -> None:
    av = build_avatar(AvatarConfig(), w, h, FPS)
    card = _card(product_png, ends_at=30.0)
    first = av.overlays.card.pieces(card)
    frames = {n: av.render(FrameState(n=n, fps=FPS, card=card)).copy() for n in (100, 110, 124, 125, 130)}
    assert av.overlays.card.composed == 1
    assert av.overlays.card.pieces(card) == first and all(a[0] is b[0] for a, b in zip(
        av.overlays.card.pieces(card), first, strict=True)), "the same layers, frame after frame"
    digits = av.overlays.card.countdown(card, 100 / FPS)[0][0]
    db: Box = (digits.y, digits.y + digits.h, digits.x, digits.x + digits.w)
    card_box = _card_box(av, card, 100 / FPS)
    # Frames 100..124 show 26 s left (t = 4.0..4.96), frame 125 shows 25 s: inside the card only the digits change.
    # (The figure breathes between frames; compare the card's box alone.)
    def card_px(f: np.ndarray) -> np.ndarray:
        return f[card_box[0]:card_box[1], card_box[2]:card_box[3]]

    assert np.array_equal(card_px(frames[100]), card_px(frames[124]))
    changed = _changed(card_px(frames[124]), card_px(frames[125]), thresh=0)
    changed = (changed[0] + card_box[0], changed[1] + card_box[0], changed[2] + card_box[2], changed[3] + card_box[2])
    assert db[0] <= changed[0] and changed[1] <= db[1] and db[2] <= changed[2] and changed[3] <= db[3], (changed, db)
    assert card.countdown(100 / FPS) == "00:26" and card.countdown(125 / FPS) == "00:25"
    assert card.countdown(31.0) == "00:00"


def test_render_next_with_a_card_matches_a_full_render_frame_by_frame(product_png) -> None:
    """The compositor keeps the card in place while the figure moves; what it shows is what a full render shows."""
    reused, fresh = build_avatar(AvatarConfig(), 1280, 720, FPS), build_avatar(AvatarConfig(), 1280, 720, FPS)
    a, b = _card(product_png, ends_at=6.0), _card(product_png, product="kettle", name="轻语电热水壶", price="129元",
                                                  ends_at=None, offer="", stock=None)
    for n in range(0, 220):
        speaking = (n // 30) % 2 == 1
        card = None if n < 10 else a if n < 120 else b
        state = FrameState(n=n, fps=FPS, speaking=speaking, openness=0.7 if speaking else 0.0, viseme=Viseme.A,
                           subtitle="第一句话。" if speaking else "", banner="小鹿：多少钱？" if n > 150 else "",
                           card=card)
        assert np.array_equal(reused.render_next(state), fresh.render(state)), n
    assert reused.overlays.card.composed == 2


def test_chinese_is_drawn_with_the_bundled_font(product_png) -> None:
    av = build_avatar(AvatarConfig(), 1280, 720, FPS)
    assert av.overlays.card.font_path == find_cjk_font()
    assert packaged_cjk_font() is None or av.overlays.card.font_path == packaged_cjk_font()
    one = av.render(FrameState(n=0, fps=FPS, card=_card(product_png, name="暖暖保温杯")))
    two = av.render(FrameState(n=0, fps=FPS, card=_card(product_png, name="云朵浴巾")))
    y0, y1, x0, x1 = _changed(one, two)
    assert y1 - y0 < 80 and x1 - x0 > 60  # one row of glyphs differs: the name (not tofu boxes that look alike)


def test_no_free_area_means_no_card_rather_than_one_over_the_face(caplog) -> None:
    with caplog.at_level(logging.WARNING):
        av = build_avatar(AvatarConfig(layout={"avatar_box": [0, 0, 1, 1]}, overlays={"subtitle": {"max_lines": 6}}),
                          320, 180, FPS)
    card = _card(None)
    if av.overlays.card is not None and av.overlays.card.rect is not None:
        pytest.fail(f"a card was placed on a canvas with no free area: {av.overlays.card.rect}")
    assert "product cards are not shown" in caplog.text
    assert np.array_equal(av.render(FrameState(n=0, fps=FPS, card=card)), av.render(FrameState(n=0, fps=FPS)))


def test_a_missing_picture_draws_the_card_without_it(tmp_path, caplog) -> None:
    av = build_avatar(AvatarConfig(), 1280, 720, FPS)
    with caplog.at_level(logging.WARNING):
        frame = av.render(FrameState(n=0, fps=FPS, card=_card(tmp_path / "gone.png")))
    assert "drawn without its picture" in caplog.text and "gone.png" in caplog.text
    assert frame.shape == (720, 1280, 3)
