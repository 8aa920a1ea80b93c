"""Config of a room's avatar and overlays: avatar kind and files, idle motion, lip-sync lead, background, overlays, layout.

Relative paths are resolved against the config file's folder (the loader passes
`context={"base_dir": ...}` to validation); a missing file is an error naming the key and the resolved path.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from common.config import Model

_HEX = re.compile(r"^#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")


def _colour(v: str) -> str:
    if not _HEX.match(v):
        raise ValueError(f"expected a colour like '#RRGGBB' or '#RRGGBBAA', got {v!r}")
    return v


# "#RRGGBB" or "#RRGGBBAA" (alpha last), as in CSS.
Colour = Annotated[str, AfterValidator(_colour)]
Corner = Literal["top-left", "top-right", "bottom-left", "bottom-right"]


def parse_colour(v: str) -> tuple[int, int, int, int]:
    """'#RRGGBB[AA]' -> (b, g, r, a), the channel order OpenCV draws in."""
    r, g, b = int(v[1:3], 16), int(v[3:5], 16), int(v[5:7], 16)
    a = int(v[7:9], 16) if len(v) == 9 else 255
    return b, g, r, a


def resolve_path(p: Path, base_dir: Path | None) -> Path:
    p = p.expanduser()
    if not p.is_absolute() and base_dir is not None:
        p = base_dir / p
    return p


def _check_file(p: Path | None, info: ValidationInfo, want_dir: bool = False) -> Path | None:
    """Existence check at config load when the loader tells us the config's folder (or the path is absolute)."""
    if p is None:
        return p
    base = (info.context or {}).get("base_dir") if info.context else None
    if not p.expanduser().is_absolute() and base is None:
        return p  # checked by build_avatar, which knows the base folder
    full = resolve_path(p, Path(base) if base is not None else None)
    if want_dir and not full.is_dir():
        raise ValueError(f"folder {str(full)!r} does not exist")
    if not want_dir and not full.exists():
        raise ValueError(f"file {str(full)!r} does not exist")
    return p


class IdleConfig(Model):
    """Idle life: blinks, breathing and sway. All of it is a function of the frame number and the seed."""

    blink_min_s: float = Field(2.0, gt=0.3, le=30)
    blink_max_s: float = Field(6.0, gt=0.3, le=30)
    double_blink: float = Field(0.2, ge=0, le=1)  # chance that a blink is followed by a second one
    breath_period_s: float = Field(4.5, ge=1, le=20)
    # Each breath lasts between breath_period_s / (1 + breath_jitter) and breath_period_s / (1 - breath_jitter):
    # the pace drifts (renderer/idle.py), so breathing has no single period.
    breath_jitter: float = Field(0.2, ge=0, le=0.6)
    breath: float = Field(0.006, ge=0, le=0.05)  # vertical scale amplitude of the upper body
    sway_px: float = Field(3.0, ge=0, le=40)  # at 720p; scaled with the canvas
    sway_deg: float = Field(0.6, ge=0, le=5)
    speak_nod: float = Field(
        1.0, ge=0, le=5
    )  # extra head motion while speaking, at 720p px per unit openness
    # A neural avatar's source video between utterances: forward and back, each leg turning at a drawn frame that
    # leaves at least loop_min_leg of the clip, resting up to loop_hold_max_s at the turn (so the loop has no period).
    loop_min_leg: float = Field(0.6, gt=0, le=1)
    loop_hold_max_s: float = Field(0.4, ge=0, le=5)

    @model_validator(mode="after")
    def _range(self) -> IdleConfig:
        if self.blink_min_s > self.blink_max_s:
            raise ValueError(f"blink_min_s {self.blink_min_s} is larger than blink_max_s {self.blink_max_s}")
        return self


class BackgroundConfig(Model):
    kind: Literal["colour", "image", "video"] = "colour"
    colour: Colour = "#20263a"
    path: Path | None = None  # image (png/jpg) or video (any format PyAV reads), looped
    fit: Literal["cover", "contain", "stretch"] = "cover"
    max_seconds: float = Field(10.0, gt=0, le=120)  # video: at most this much is held in memory and looped

    @field_validator("path")
    @classmethod
    def _exists(cls, v: Path | None, info: ValidationInfo) -> Path | None:
        return _check_file(v, info)

    @model_validator(mode="after")
    def _needs_path(self) -> BackgroundConfig:
        if self.kind != "colour" and self.path is None:
            raise ValueError(f"background kind {self.kind!r} needs 'path'")
        return self


class SubtitleConfig(Model):
    enabled: bool = True
    font: Path | None = None  # a TTF/OTF/TTC that covers Chinese; default: the packaged Noto Sans SC
    size: int = Field(0, ge=0, le=400)  # px; 0 = canvas height / 20 (width / 16 on tall canvases)
    position: Literal["bottom", "top", "middle"] = "bottom"
    margin: float = Field(0.05, ge=0, le=0.5)  # fraction of the canvas height from the edge
    max_lines: int = Field(2, ge=1, le=6)
    colour: Colour = "#ffffff"
    outline: Colour = "#000000"
    box: Colour | None = "#00000088"  # plate behind the text; None for none

    @field_validator("font")
    @classmethod
    def _exists(cls, v: Path | None, info: ValidationInfo) -> Path | None:
        return _check_file(v, info)


class BannerConfig(Model):
    enabled: bool = True
    size: int = Field(0, ge=0, le=400)  # px; 0 = canvas height / 30
    position: Literal["top", "bottom"] = "top"
    colour: Colour = "#ffffff"
    box: Colour = "#d9467acc"


# The label's text by the room's language; a room on a Chinese platform keeps the bilingual one (broadcaster/config.py).
LABEL_TEXTS = {"zh": "本内容由AI生成 · AI-generated", "en": "AI-generated content"}


class LabelConfig(Model):
    """The AI-generated content label; Chinese platforms require one, so it is on by default."""

    enabled: bool = True
    text: str = Field(LABEL_TEXTS["zh"], min_length=1, max_length=80)
    size: int = Field(0, ge=0, le=200)  # px; 0 = canvas height / 45
    position: Corner = "top-right"
    colour: Colour = "#ffffff"
    box: Colour = "#00000080"


class LogoConfig(Model):
    path: Path
    position: Corner = "top-left"
    height: float = Field(0.08, gt=0, le=0.5)  # fraction of the canvas height
    opacity: float = Field(1.0, ge=0, le=1)

    @field_validator("path")
    @classmethod
    def _exists(cls, v: Path, info: ValidationInfo) -> Path:
        checked = _check_file(v, info)
        assert checked is not None
        return checked


class CardConfig(Model):
    """The product card of a room that sells products (renderer/card.py): where and how it is drawn. Its content
    (picture, name, price, offer, stock) comes from the room's products."""

    enabled: bool = True
    # auto: the largest area clear of the face, subtitles, banner, logo and label (a column beside the face or
    # a band above it); left/right/top: only there
    position: Literal["auto", "left", "right", "top"] = "auto"
    size: float = Field(0.46, ge=0.2, le=0.9)  # a column card's width at most this share of the canvas's short side
    plate: Colour = "#fffaf3"
    text: Colour = "#2b2b2b"
    price: Colour = "#e0312f"
    accent: Colour = "#f05a00"  # offer and countdown


class OverlaysConfig(Model):
    subtitle: SubtitleConfig = SubtitleConfig()
    banner: BannerConfig = BannerConfig()
    label: LabelConfig = LabelConfig()
    logo: LogoConfig | None = None
    card: CardConfig = CardConfig()


class LayoutConfig(Model):
    """Where the avatar sits: a box in fractions of the canvas; None picks one by orientation."""

    avatar_box: tuple[float, float, float, float] | None = None  # x, y, w, h in 0..1
    fit: Literal["cover", "contain"] = "contain"  # portrait photo: fill the box (cropped) or fit inside it
    margin: float = Field(0.02, ge=0, le=0.3)  # fraction of the canvas height kept free around overlays

    @field_validator("avatar_box")
    @classmethod
    def _box(cls, v: tuple[float, float, float, float] | None) -> tuple[float, float, float, float] | None:
        if v is None:
            return v
        x, y, w, h = v
        if not (
            0 <= x < 1 and 0 <= y < 1 and 0 < w <= 1 and 0 < h <= 1 and x + w <= 1.0001 and y + h <= 1.0001
        ):
            raise ValueError(f"expected [x, y, w, h] fractions of the canvas inside 0..1, got {list(v)}")
        return v


class BuiltinStyle(Model):
    """Colours of the built-in (drawn by code) avatar."""

    skin: Colour = "#f6d7c3"
    hair: Colour = "#3b2a4a"
    eyes: Colour = "#4a6fa5"
    outfit: Colour = "#5b7bd5"
    accent: Colour = "#f2f2f7"


def _check_model_dir(p: Path | None, info: ValidationInfo) -> Path | None:
    """A neural model folder: exists and holds every file of the published layout (no torch needed to check)."""
    checked = _check_file(p, info, want_dir=True)
    base = (info.context or {}).get("base_dir") if info.context else None
    if checked is None or (not checked.expanduser().is_absolute() and base is None):
        return checked
    from renderer.neural.loader import ModelFilesError, check_layout

    try:
        check_layout(resolve_path(checked, Path(base) if base is not None else None), key="")
    except ModelFilesError as exc:
        raise ValueError(str(exc)) from None
    return checked


class AvatarConfig(Model):
    kind: Literal["builtin", "portrait", "sprite", "neural"] = "builtin"
    # portrait: an image file (jpg/png); sprite: a folder holding manifest.yaml (or manifest.json) or that file
    path: Path | None = None
    face_box: tuple[int, int, int, int] | None = (
        None  # portrait: x, y, w, h of the face in the photo's pixels
    )
    # portrait: a JSON file of named face points in the photo's pixels (renderer/README.md), used
    # instead of detection; for photos the face mesh cannot read (or reads wrongly)
    landmarks: Path | None = None
    seed: int = 0
    lead_frames: float = Field(0.5, ge=0, le=1)  # how far (in frames) the mouth may anticipate the sound
    style: BuiltinStyle = BuiltinStyle()
    idle: IdleConfig = IdleConfig()
    background: BackgroundConfig = BackgroundConfig()
    overlays: OverlaysConfig = OverlaysConfig()
    layout: LayoutConfig = LayoutConfig()
    # neural (docs/face.md): a MuseTalk-1.5-layout model folder; the person's photo (jpg/png) or video (mp4, mov,
    # ...: its first source_seconds loop forward and back); device auto = the GPU when usable, else the CPU;
    # dtype auto = bf16 (or fp16) on a GPU, fp32 on the CPU
    model_dir: Path | None = None
    source: Path | None = None
    source_seconds: float = Field(6.0, gt=0, le=30)
    device: str = Field("auto", pattern=r"^(cpu|auto|cuda(:\d+)?)$")
    dtype: Literal["auto", "float32", "float16", "bfloat16"] = "auto"
    # neural: how long the stage may hold an utterance's start for its first face frames; past it the CPU
    # portrait draws the whole utterance (the hold is counted in the latency trail)
    face_hold_ms: float = Field(80.0, ge=0, le=1000)

    @field_validator("model_dir")
    @classmethod
    def _model_dir(cls, v: Path | None, info: ValidationInfo) -> Path | None:
        return _check_model_dir(v, info)

    @field_validator("source")
    @classmethod
    def _source_exists(cls, v: Path | None, info: ValidationInfo) -> Path | None:
        return _check_file(v, info)

    @field_validator("path")
    @classmethod
    def _exists(cls, v: Path | None, info: ValidationInfo) -> Path | None:
        return _check_file(v, info)

    @field_validator("landmarks")
    @classmethod
    def _landmarks_exists(cls, v: Path | None, info: ValidationInfo) -> Path | None:
        return _check_file(v, info)

    @field_validator("face_box")
    @classmethod
    def _face_box(cls, v: tuple[int, int, int, int] | None) -> tuple[int, int, int, int] | None:
        if v is not None and (v[0] < 0 or v[1] < 0 or v[2] < 16 or v[3] < 16):
            raise ValueError(f"expected [x, y, w, h] in photo pixels with w, h >= 16, got {list(v)}")
        return v

    @model_validator(mode="after")
    def _needs_path(self) -> AvatarConfig:
        if self.kind in ("portrait", "sprite") and self.path is None:
            what = "a photo file" if self.kind == "portrait" else "a sprite folder with manifest.yaml"
            raise ValueError(f"avatar kind {self.kind!r} needs 'path' ({what})")
        if self.face_box is not None and self.kind != "portrait":
            raise ValueError("face_box applies only to kind 'portrait'")
        if self.landmarks is not None and self.kind != "portrait":
            raise ValueError("landmarks applies only to kind 'portrait'")
        if self.kind == "neural" and (self.model_dir is None or self.source is None):
            raise ValueError(
                "avatar kind 'neural' needs 'model_dir' (a MuseTalk 1.5 model folder) and 'source' (a photo or video)"
            )
        if self.kind != "neural" and (self.model_dir is not None or self.source is not None):
            raise ValueError("model_dir and source apply only to kind 'neural'")
        return self
