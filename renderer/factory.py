"""build_avatar: config -> an Avatar that composes background, the avatar (builtin/portrait/sprite) and overlays."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from renderer.background import Background
from renderer.base import FrameState
from renderer.card import Card
from renderer.config import AvatarConfig
from renderer.errors import AvatarError
from renderer.idle import IdleMotion, Pose
from renderer.layers import Layer, blend_layer, paste
from renderer.overlays import Overlays
from renderer.rig import Rig


class Figure(Protocol):
    """The avatar proper, drawn into a canvas that already holds the background (unless it covers it)."""

    covers_canvas: bool

    def render_into(self, canvas: np.ndarray, state: FrameState, pose: Pose) -> None: ...


def avatar_box(cfg: AvatarConfig, width: int, height: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) in canvas px: configured, or a default by orientation (landscape: centred, full height)."""
    if cfg.layout.avatar_box is not None:
        fx, fy, fw, fh = cfg.layout.avatar_box
        return round(fx * width), round(fy * height), max(16, round(fw * width)), max(16, round(fh * height))
    if cfg.kind in ("portrait", "neural"):
        return 0, 0, width, height  # a photo brings its own surroundings
    if width >= height:
        bh = round(height * 0.94)
        return 0, height - bh, width, bh
    bh = round(height * 0.72)
    return 0, height - bh, width, bh


class CompositeAvatar:
    """The Avatar the stage uses: render(state) is a pure function of (state, config, seed)."""

    def __init__(
        self,
        cfg: AvatarConfig,
        width: int,
        height: int,
        fps: int,
        figure: Figure,
        background: Background,
        overlays: Overlays,
    ):
        self.cfg = cfg
        self.width, self.height, self.fps = width, height, fps
        self.figure = figure
        self.background = background
        self.overlays = overlays
        self.idle = IdleMotion(cfg.idle, cfg.seed)
        self._body_frame = np.empty((height, width, 3), np.uint8)
        self._body_key: object = None
        # render_next's two buffers, and per buffer what it holds beyond the body picture (_Drawn): restored
        # from the body picture next time instead of copying the whole frame (~0.3 ms of a 720p frame), and
        # overlays still in place are not drawn again.
        self._ring = [np.empty((height, width, 3), np.uint8) for _ in range(2)]
        self._ring_at = 0
        self._drawn: list[_Drawn | None] = [None, None]

    def prepare(self, subtitle: str = "", banner: str = "") -> None:
        """Draw a coming subtitle/banner into the overlay cache now (thread-safe), so the frame that first
        shows it costs no more than any other; call it when an utterance is queued."""
        if subtitle:
            self.overlays.subtitle_layer(subtitle)
        if banner:
            self.overlays.banner_layer(banner)

    def prepare_card(self, card: Card) -> None:
        """Compose a product card now (thread-safe), so the frame that first shows it is not late."""
        if self.overlays.card is not None:
            self.overlays.card.pieces(card)

    def render(self, state: FrameState, out: np.ndarray | None = None) -> np.ndarray:
        """Frame `state.n` as BGR uint8 (height, width, 3); a new array unless `out` is given."""
        frame = np.empty((self.height, self.width, 3), np.uint8) if out is None else out
        self._draw(frame, state, None)
        return frame

    def render_next(self, state: FrameState) -> np.ndarray:
        """Frame `state.n` drawn into the next of two buffers this avatar owns, alternately: the frame returned
        stays intact until the call after next (the media clock's frame and its last one). Costs less than
        render(): a buffer keeps its last picture, and only what changed since is redrawn."""
        i = self._ring_at
        self._ring_at ^= 1
        drawn, self._drawn[i] = self._drawn[i], None  # a draw that raises leaves the buffer unknown
        self._drawn[i] = self._draw(self._ring[i], state, drawn)
        return self._ring[i]

    def _draw(self, frame: np.ndarray, state: FrameState, drawn: _Drawn | None) -> _Drawn | None:
        """Draws into `frame`. With `drawn` (what `frame` holds) and the body unmoved since, only what was
        drawn over the body is restored, and overlays unchanged and untouched by the features stay as they
        are. Returns what `frame` holds now, or None when that cannot be told (a figure that draws everywhere)."""
        pose = self.idle.pose(state.n, state.fps or self.fps, state.openness)
        figure = self.figure
        placed = self.overlays.placed(state)
        if not isinstance(figure, RigFigure) or self.background.is_video:
            if not figure.covers_canvas:
                np.copyto(frame, self.background.frame(state.n))
            figure.render_into(frame, state, pose)
            for layer, dx, dy in placed:
                blend_layer(frame, layer, dx, dy)
            return None
        # Background + body change only when the body moves a whole pixel or breathing changes its row map
        # (every few frames): keep that picture and redraw only the features.
        key = figure.renderer.body_key(state, pose)
        w, h = figure.renderer.rig.size
        if key != self._body_key:
            # The background is still: only where the body was or is now can the picture differ.
            if self._body_key is None:
                np.copyto(self._body_frame, self.background.frame(state.n))
            else:
                _restore(self._body_frame, self.background.frame(state.n),
                         _union(_body_rect(self._body_key, w, h), _body_rect(key, w, h)))
            figure.renderer.draw_body(self._body_frame, key)
            self._body_key = key
        body = self._body_frame
        if drawn is None:
            np.copyto(frame, body)
            drawn = _Drawn(key, [], [])
        elif drawn.key != key:
            # The body moved since this buffer was drawn: where it was and is gets restored below like a feature's
            # rectangle, with the overlays over it; an overlay clear of it (a product card beside the figure) stays.
            drawn = _Drawn(key, [_union(_body_rect(drawn.key, w, h), _body_rect(key, w, h)), *drawn.features],
                           drawn.overlays)
        # Overlays are drawn after the features: one stays in place (not restored, not drawn again) when it is
        # the same layer at the same spot as in this buffer, every overlay before it stays too, and no feature
        # rectangle, old or new, reaches under it.
        kept = 0
        for old, new in zip(drawn.overlays, placed, strict=False):
            if old[0] is not new[0] or old[1:] != new[1:] or _touches(_rect(*new), drawn.features):
                break
            kept += 1
        stale = [_rect(*o) for o in drawn.overlays[kept:]]
        if any(_touches(_rect(*o), stale) for o in placed[:kept]):
            kept, stale = 0, [_rect(*o) for o in drawn.overlays]
        for rect in drawn.features + stale:
            _restore(frame, body, rect)
        features = figure.renderer.draw_features(frame, state, pose, key)
        if any(_touches(_rect(*o), features) for o in placed[:kept]):
            # A feature moved under an overlay that was kept (never in the default layout): start over.
            np.copyto(frame, body)
            features = figure.renderer.draw_features(frame, state, pose, key)
            kept = 0
        for layer, dx, dy in placed[kept:]:
            blend_layer(frame, layer, dx, dy)
        return _Drawn(key, features, placed)


Rect = tuple[int, int, int, int]  # x, y, w, h in canvas px


@dataclass(slots=True)
class _Drawn:
    """What a render_next buffer holds: the body picture of `key`, the features' rectangles drawn over it, and
    the overlays (layer, dx, dy) drawn last."""

    key: object
    features: list[Rect]
    overlays: list[tuple[Layer, int, int]]


def _rect(layer: Layer, dx: int, dy: int) -> Rect:
    return layer.x + dx, layer.y + dy, layer.w, layer.h


def _body_rect(key: object, w: int, h: int) -> Rect:
    """Where RigRenderer.draw_body draws for a body key (its place is the key's first two fields)."""
    ox, oy = key[0], key[1]  # type: ignore[index]
    return ox, oy, w, h


def _union(a: Rect, b: Rect) -> Rect:
    x0, y0 = min(a[0], b[0]), min(a[1], b[1])
    return x0, y0, max(a[0] + a[2], b[0] + b[2]) - x0, max(a[1] + a[3], b[1] + b[3]) - y0


def _touches(rect: Rect, others: list[Rect]) -> bool:
    x, y, w, h = rect
    return any(x < ox + ow and ox < x + w and y < oy + oh and oy < y + h for ox, oy, ow, oh in others)


def _restore(frame: np.ndarray, body: np.ndarray, rect: Rect) -> None:
    x, y, w, h = rect
    paste(frame, body[max(0, y) : y + h, max(0, x) : x + w], max(0, x), max(0, y))


class RigFigure:
    """A Rig (built-in or sprite) placed bottom-centred in the avatar box."""

    covers_canvas = False

    def __init__(
        self, rig: Rig, box: tuple[int, int, int, int], canvas_h: int, sway_px: float, max_breath: float
    ):
        from renderer.rig import RigRenderer

        bx, by, bw, bh = box
        rw, rh = rig.size
        rig.scale = canvas_h / 720
        # Hang the rig a little below the box so swaying never shows its cut-off bottom edge.
        under = math.ceil(sway_px * rig.scale * 0.5) + 2
        x = bx + (bw - rw) // 2
        y = by + bh - rh + under
        self.renderer = RigRenderer(rig, x, y, max_breath)

    def render_into(self, canvas: np.ndarray, state: FrameState, pose: Pose) -> None:
        self.renderer.render_into(canvas, state, pose)


def _rig_height(box: tuple[int, int, int, int], aspect: float) -> int:
    """Tallest rig of width/height `aspect` that fits the box (plus a few px hanging below)."""
    _, _, bw, bh = box
    return int(min(bh, bw / aspect)) + 4


def _neural_figure(
    cfg: AvatarConfig,
    box: tuple[int, int, int, int],
    width: int,
    height: int,
    fps: int,
    cache_dir: Path | None,
) -> tuple[Figure, AvatarConfig]:
    """The neural figure (no model loaded here: crops come from the face service) with its portrait fallback.

    Body sway and breathing are off for this kind: the model redraws a still source frame, and the portrait
    drawing an utterance in its place must stand exactly where the neural frames stand (blinks stay).
    """
    from renderer.neural.avatar import NeuralAvatar, fallback_photo
    from renderer.neural.prepare import prepare
    from renderer.portrait import PortraitFigure

    assert cfg.source is not None
    still = cfg.idle.model_copy(update={"sway_px": 0.0, "sway_deg": 0.0, "breath": 0.0, "speak_nod": 0.0})
    cfg = cfg.model_copy(update={"idle": still})
    prepared = prepare(cfg.source.expanduser(), cache_dir, max_seconds=cfg.source_seconds, idle=cfg.idle)
    photo = fallback_photo(prepared, cache_dir)
    portrait = PortraitFigure(photo, None, box, width, height, cfg, cache_dir=cache_dir)
    return NeuralAvatar(prepared, portrait, fps), cfg


def build_avatar(
    cfg: AvatarConfig,
    width: int,
    height: int,
    fps: int,
    *,
    cache_dir: Path | None = None,
) -> CompositeAvatar:
    """Load and precompute everything for a room's avatar; raises AvatarError naming key and file on bad input.

    Paths in `cfg` are already resolved against the config file by the loader. `cache_dir` (the
    daemon's state dir) keeps detected face landmarks per photo hash, so a restart skips detection.
    """
    if width < 64 or height < 64 or width % 2 or height % 2:
        raise AvatarError(f"canvas {width}x{height}: expected even sizes of at least 64 px")
    cv2.setNumThreads(1)  # one room, one core: OpenCV's own threads would fight the encoder's
    box = avatar_box(cfg, width, height)
    figure: Figure
    if cfg.kind == "builtin":
        from renderer.builtin import build_builtin_rig

        figure = RigFigure(
            build_builtin_rig(cfg.style, _rig_height(box, 0.8)),
            box,
            height,
            cfg.idle.sway_px,
            cfg.idle.breath,
        )
    elif cfg.kind == "sprite":
        from renderer.sprite import load_sprite_rig

        assert cfg.path is not None
        rig = load_sprite_rig(cfg.path.expanduser(), box)
        figure = RigFigure(rig, box, height, cfg.idle.sway_px, cfg.idle.breath)
    elif cfg.kind == "neural":
        figure, cfg = _neural_figure(cfg, box, width, height, fps, cache_dir)
    else:
        from renderer.portrait import PortraitFigure

        assert cfg.path is not None
        figure = PortraitFigure(
            cfg.path.expanduser(),
            cfg.face_box,
            box,
            width,
            height,
            cfg,
            landmarks_file=cfg.landmarks.expanduser() if cfg.landmarks is not None else None,
            cache_dir=cache_dir,
        )
    background = Background(cfg.background, width, height, fps)
    overlays = Overlays(cfg.overlays, width, height)
    if cfg.overlays.card.enabled:
        overlays.add_card(face_rect(figure, height))
    return CompositeAvatar(cfg, width, height, fps, figure, background, overlays)


def face_rect(figure: Figure, height: int) -> tuple[int, int, int, int] | None:
    """Where the figure draws its head (face and hair), with room for sway and nods, as (x, y, w, h) canvas px: what
    the product card keeps clear of. None when the figure does not say."""
    if isinstance(figure, RigFigure):
        r, rig = figure.renderer, figure.renderer.rig
        if rig.head is not None:
            (hx, hy), (hh, hw) = rig.head_xy, rig.head.shape[:2]
        else:  # a sprite without a head patch: around its eyes and mouth, with the forehead and chin
            parts = [rig.eyes[0], rig.mouth_closed]
            x0, y0 = min(p.x for p in parts), min(p.y for p in parts)
            x1, y1 = max(p.x + p.w for p in parts), max(p.y + p.h for p in parts)
            hw, hh = round(2.0 * (x1 - x0)), round(2.6 * (y1 - y0))
            hx, hy = (x0 + x1 - hw) // 2, (y0 + y1 - hh) // 2
        x, y, w, h = r.x + hx, r.y + hy, hw, hh
    else:
        portrait = getattr(figure, "fallback", figure)  # a neural figure stands where its portrait stands
        head, rect = getattr(portrait, "head_rect", None), getattr(portrait, "rect", None)
        if head is None or rect is None:
            return None
        x, y, w, h = rect[0] + head[0], rect[1] + head[1], head[2], head[3]
    m = round(0.03 * height)
    return round(x) - m, round(y) - m, round(w) + 2 * m, round(h) + 2 * m
