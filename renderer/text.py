"""Text overlays: finding a font that can draw Chinese, wrapping, and rendering captions to cached layers."""

from __future__ import annotations

import functools
import importlib.resources
import logging
import shutil
import subprocess
import threading
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from common.bounded import BoundedDict
from renderer.config import parse_colour
from renderer.layers import Layer

log = logging.getLogger(__name__)

# A core dependency ships this font (pylopdf-fonts-zh-cn: Noto Sans SC, SIL OFL 1.1), so captions render
# Chinese on a machine where nobody installed fonts or was root, and look the same on every machine.
_PACKAGED_CJK = ("pylopdf_fonts_zh_cn", "NotoSansSC-Regular.otf")

# Checked in this order after fontconfig: where Debian, Fedora, Arch and macOS put common CJK fonts.
_KNOWN_CJK = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/System/Library/Fonts/PingFang.ttc",
)
_PROBE = "中国字"


def _glyph(font: ImageFont.FreeTypeFont, ch: str) -> np.ndarray:
    img = Image.new("L", (64, 64), 0)
    ImageDraw.Draw(img).text((8, 4), ch, font=font, fill=255)
    return np.asarray(img)


def font_renders_cjk(path: str | Path) -> bool:
    """True when the font draws distinct, non-empty glyphs for Chinese characters (not boxes/tofu)."""
    try:
        font = ImageFont.truetype(str(path), 40)
    except OSError:
        return False
    glyphs = [_glyph(font, ch) for ch in _PROBE]
    if any(g.max() == 0 for g in glyphs):
        return False
    # A missing glyph is drawn as the same .notdef box for every character.
    return not all(np.array_equal(glyphs[0], g) for g in glyphs[1:])


def _fc(args: list[str]) -> list[str]:
    exe = shutil.which(args[0])
    if exe is None:
        return []
    try:
        out = subprocess.run([exe, *args[1:]], capture_output=True, text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.split(":")[0].strip() for line in out.splitlines() if line.strip()]


def packaged_cjk_font() -> Path | None:
    """The CJK font file the Python dependency ships, or None when that package is not installed."""
    package, name = _PACKAGED_CJK
    try:
        path = Path(str(importlib.resources.files(package) / name))
    except ModuleNotFoundError:
        return None
    return path if path.is_file() else None


def _cjk_candidates() -> Iterator[str]:
    packaged = packaged_cjk_font()
    if packaged:
        yield str(packaged)
    # Lazily: fontconfig runs only when the packaged font is missing or cannot draw Chinese.
    yield from _fc(["fc-match", "-f", "%{file}\n", ":lang=zh-cn"])
    yield from sorted(_fc(["fc-list", ":lang=zh", "file"]), key=lambda p: ("Sans" not in p and "Hei" not in p, p))
    yield from _KNOWN_CJK


@functools.cache
def find_cjk_font() -> Path | None:
    """A font file that renders Chinese: the packaged one, then fontconfig's choice for zh-cn, any zh font,
    then known paths."""
    seen: set[str] = set()
    for c in _cjk_candidates():
        if c in seen or not c or not Path(c).is_file():
            continue
        seen.add(c)
        if font_renders_cjk(c):
            return Path(c)
    return None


def _is_wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _tokens(text: str) -> list[str]:
    """Wrap units: each CJK character alone; runs of other characters as words (with their trailing space)."""
    out: list[str] = []
    word = ""
    for ch in text:
        if _is_wide(ch):
            if word:
                out.append(word)
                word = ""
            out.append(ch)
        else:
            word += ch
            if ch == " ":
                out.append(word)
                word = ""
    if word:
        out.append(word)
    return out


# Characters that must not start a line (closing punctuation) in Chinese typesetting.
_NO_START = set("，。！？、；：）》」』”’,.!?;:)")


@functools.lru_cache(maxsize=16384)
def _token_width(font: ImageFont.FreeTypeFont, s: str) -> float:
    # Captions reuse the same characters all day: measuring each once keeps a new sentence cheap.
    return float(font.getlength(s))


def wrap(text: str, font: ImageFont.FreeTypeFont, max_width: float) -> list[str]:
    """Greedy line breaking; widths add up per token (kerning across tokens is negligible for captions)."""
    lines: list[str] = []
    cur, cur_w = "", 0.0

    def width(s: str) -> float:
        return _token_width(font, s)

    for tok in _tokens(" ".join(text.split())):
        tok_w = width(tok.rstrip())
        if cur and cur_w + tok_w > max_width and tok[0] not in _NO_START:
            lines.append(cur.rstrip())
            cur = tok.lstrip()
            cur_w = width(cur)
        else:
            cur += tok
            cur_w += width(tok) if tok != tok.rstrip() else tok_w
    if cur.strip():
        lines.append(cur.rstrip())
    return lines


def clip_lines(lines: list[str], font: ImageFont.FreeTypeFont, max_width: float, max_lines: int) -> list[str]:
    """At most `max_lines` of wrapped lines, the last one ellipsized (…) to fit when text was left out."""
    if len(lines) <= max_lines:
        return lines
    lines = lines[:max_lines]
    last = lines[-1]
    while last and font.getlength(last + "…") > max_width:
        last = last[:-1]
    return [*lines[:-1], last + "…"]


class TextStyle:
    def __init__(self, colour: str, outline: str | None, box: str | None, size: int):
        self.colour = parse_colour(colour)
        self.outline = parse_colour(outline) if outline else None
        self.box = parse_colour(box) if box else None
        self.size = size


class TextRenderer:
    """Renders captions to premultiplied layers, cached: a subtitle changes once per sentence, not per frame."""

    def __init__(self, font_path: Path | None, cache_size: int = 32):
        self.font_path = font_path
        self._fonts: dict[int, ImageFont.FreeTypeFont | ImageFont.ImageFont] = {}
        self._cache: BoundedDict[tuple[object, ...], Layer] = BoundedDict(cache_size)
        # prepare() may run on another thread (the voice's) while the clock thread renders; FreeType
        # faces are not thread-safe, so drawing is serialised too.
        self._lock = threading.Lock()
        self._draw_lock = threading.Lock()

    def font(self, size: int) -> ImageFont.FreeTypeFont:
        f = self._fonts.get(size)
        if f is None:
            f = (
                ImageFont.truetype(str(self.font_path), size)
                if self.font_path
                else ImageFont.load_default(size)
            )
            self._fonts[size] = f
        return f  # type: ignore[return-value]

    def render(self, text: str, style: TextStyle, max_width: int, max_lines: int = 1) -> Layer:
        """The caption as a layer at (0, 0): text wrapped to max_width, shrunk then ellipsized to max_lines."""
        key = (text, id(style), max_width, max_lines)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.touch(key)
                return hit
        with self._draw_lock:
            layer = self._draw(text, style, max_width, max_lines)
        with self._lock:
            self._cache[key] = layer
        return layer

    def _draw(self, text: str, style: TextStyle, max_width: int, max_lines: int) -> Layer:
        size = style.size
        pad = max(2, size // 4)
        inner = max(8, max_width - 2 * pad)
        font = self.font(size)
        lines = wrap(text, font, inner)
        while len(lines) > max_lines and size > style.size * 0.7:
            size = int(size * 0.9)
            font = self.font(size)
            lines = wrap(text, font, inner)
        lines = clip_lines(lines, font, inner, max_lines)
        stroke = max(1, size // 14) if style.outline else 0
        asc, desc = font.getmetrics()
        line_h = asc + desc + stroke * 2
        text_w = max((int(font.getlength(ln)) for ln in lines), default=0) + 2 * stroke
        w = min(max_width + size, text_w + 2 * pad)  # room for hanging closing punctuation
        h = line_h * len(lines) + 2 * pad
        fill = Image.new("L", (w, h), 0)
        outline = Image.new("L", (w, h), 0)
        df, do = ImageDraw.Draw(fill), ImageDraw.Draw(outline)
        for i, ln in enumerate(lines):
            x = (w - int(font.getlength(ln))) // 2
            y = pad + i * line_h + stroke
            if stroke:
                do.text((x, y), ln, font=font, fill=255, stroke_width=stroke, stroke_fill=255)
            df.text((x, y), ln, font=font, fill=255)
        # "Over" of plate, outline and text reduces to per-pixel weights of the three colours:
        # text a_t, outline (1-a_t)a_o, plate (1-a_t)(1-a_o)a_b; premultiplied colour = weights @ colours.
        zero = np.zeros((h, w), np.float32)
        a_b = zero
        if style.box:
            plate = Image.new("L", (w, h), 0)
            ImageDraw.Draw(plate).rounded_rectangle((0, 0, w - 1, h - 1), radius=pad, fill=255)
            a_b = np.asarray(plate, np.float32) * (style.box[3] / 255.0 / 255.0)
        a_o = np.asarray(outline, np.float32) * (style.outline[3] / 255.0 / 255.0) if style.outline else zero
        a_t = np.asarray(fill, np.float32) * (style.colour[3] / 255.0 / 255.0)
        w_o = (1 - a_t) * a_o
        w_b = (1 - a_t) * (1 - a_o) * a_b
        weights = np.stack([a_t, w_o, w_b], axis=-1)
        colours = np.array(
            [style.colour[:3], (style.outline or (0, 0, 0, 0))[:3], (style.box or (0, 0, 0, 0))[:3]],
            np.float32,
        )
        premul = np.clip(weights @ colours + 0.5, 0, 255).astype(np.uint8)
        alpha = a_t + w_o + w_b
        inv = cv2.cvtColor(np.clip(255.5 - alpha * 255, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
        return Layer(premul, inv)
