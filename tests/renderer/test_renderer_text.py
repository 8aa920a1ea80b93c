"""Subtitles: a CJK font is found, Chinese renders as glyphs (not boxes), wrapping, caching, warnings."""

from __future__ import annotations

import logging
import subprocess

import cv2
import numpy as np
from renderer_speech import FPS

from renderer import overlays, text
from renderer.base import FrameState
from renderer.config import AvatarConfig
from renderer.factory import build_avatar
from tests.support.programs import require_file, require_program


def _require_cjk_font():
    font = text.find_cjk_font()
    assert font is not None, "no font renders Chinese: is the CJK font package (pyproject dependency) installed?"
    return font


def _subtitle_ink(av, s: str) -> np.ndarray:
    """The subtitle strip of a frame with subtitle `s`, minus the same frame without it."""
    base = av.render(FrameState(n=0, fps=FPS))
    with_sub = av.render(FrameState(n=0, fps=FPS, subtitle=s))
    return cv2.absdiff(with_sub, base).max(axis=2)


def test_chinese_subtitle_renders_glyphs_not_boxes() -> None:
    _require_cjk_font()
    # No plate and no outline: the difference is the glyph ink alone.
    av = build_avatar(
        AvatarConfig(overlays={"subtitle": {"box": None, "outline": "#ffffff"}}), 1280, 720, FPS
    )
    inks = {ch: _subtitle_ink(av, ch) > 40 for ch in "一田口中"}
    # A missing glyph is the same box for every character; real glyphs differ from each other.
    chars = list(inks)
    for i, a in enumerate(chars):
        for b in chars[i + 1 :]:
            assert not np.array_equal(inks[a], inks[b]), (a, b)
    amount = {ch: int(m.sum()) for ch, m in inks.items()}
    assert amount["一"] > 0
    assert amount["一"] * 2 < amount["田"], amount  # one stroke has far less ink than a boxed grid
    # 一 is one horizontal stroke: its ink spans few rows and many columns.
    ys, xs = np.nonzero(inks["一"])
    assert (ys.max() - ys.min()) * 3 < (xs.max() - xs.min())


def test_found_font_is_the_packaged_one_then_fontconfigs_choice(monkeypatch) -> None:
    font = _require_cjk_font()
    assert font == text.packaged_cjk_font() and text.font_renders_cjk(font)
    # Without the packaged font, the system's: what fontconfig picks for zh-cn.
    fc_match = require_program("fc-match")
    require_file("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
    monkeypatch.setattr(text, "packaged_cjk_font", lambda: None)
    text.find_cjk_font.cache_clear()
    try:
        fallback = text.find_cjk_font()
    finally:
        text.find_cjk_font.cache_clear()
    chosen = subprocess.run([fc_match, "-f", "%{file}", ":lang=zh-cn"], capture_output=True, text=True).stdout
    assert fallback is not None and str(fallback) == chosen and text.font_renders_cjk(fallback)


def test_warns_when_no_font_can_render_chinese(monkeypatch, caplog) -> None:
    monkeypatch.setattr(overlays, "find_cjk_font", lambda: None)
    with caplog.at_level(logging.WARNING, logger="renderer.overlays"):
        av = build_avatar(AvatarConfig(), 854, 480, FPS)
    assert any("can render Chinese" in r.getMessage() for r in caplog.records)
    frame = av.render(FrameState(n=0, fps=FPS, subtitle="still draws latin text"))
    assert frame.shape == (480, 854, 3)


def test_configured_latin_only_font_warns(caplog, tmp_path) -> None:
    font = require_file("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    assert not text.font_renders_cjk(font)
    with caplog.at_level(logging.WARNING, logger="renderer.overlays"):
        build_avatar(AvatarConfig(overlays={"subtitle": {"font": font}}), 854, 480, FPS)
    assert any("cannot render Chinese" in r.getMessage() for r in caplog.records)


def test_wrap_and_ellipsis() -> None:
    _require_cjk_font()
    r = text.TextRenderer(text.find_cjk_font())
    font = r.font(30)
    lines = text.wrap("这是一个很长的句子，" * 8, font, 400)
    assert len(lines) > 2
    # Closing punctuation never starts a line; it may hang past the edge instead.
    assert not any(ln.startswith("，") for ln in lines)
    assert all(font.getlength(ln.rstrip("，")) <= 400 for ln in lines)
    words = text.wrap("hello wonderful world of live streaming", font, 200)
    assert all(w in " ".join(words).split() for w in ["hello", "wonderful", "world"])  # words kept whole
    style = text.TextStyle("#ffffff", "#000000", "#00000080", 30)
    layer = r.render("这是一个很长的句子，" * 8, style, 400, max_lines=2)
    assert layer.h < 30 * 3 + 30  # at most two lines (plus padding)


def test_subtitle_layers_are_cached() -> None:
    av = build_avatar(AvatarConfig(), 854, 480, FPS)
    ov = av.overlays
    a, _, _ = ov.subtitle_layer("同一句话")
    b, _, _ = ov.subtitle_layer("同一句话")
    assert a is b  # drawn once per sentence, reused every frame
    c, _, _ = ov.subtitle_layer("下一句")
    assert c is not a


def test_prepare_draws_ahead_from_another_thread() -> None:
    import threading

    av = build_avatar(AvatarConfig(), 854, 480, FPS)
    t = threading.Thread(target=av.prepare, args=("下一句字幕", "回答 @小李: 发货时间"))
    t.start()
    frames = [av.render(FrameState(n=n, fps=FPS, subtitle="当前字幕")) for n in range(5)]
    t.join()
    assert av.overlays.subtitle_layer("下一句字幕")[0] is av.overlays.subtitle_layer("下一句字幕")[0]
    before = len(av.overlays.text._cache)
    av.render(FrameState(n=6, fps=FPS, subtitle="下一句字幕", banner="回答 @小李: 发货时间"))
    assert len(av.overlays.text._cache) == before  # nothing new drawn on the clock thread
    assert all(f.shape == (480, 854, 3) for f in frames)
