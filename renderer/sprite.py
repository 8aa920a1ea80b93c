"""The sprite avatar: a folder of layered PNGs (PNGTuber style) plus a manifest, validated and turned into a Rig.

manifest.yaml (or manifest.json) in the folder:

    base: base.png                # body and face without eyes or mouth; sets the size of every layer
    eyes: {open: eyes_open.png, closed: eyes_closed.png, half: eyes_half.png}   # half is optional
    mouths: {closed: m_closed.png, A: m_a.png, I: m_i.png, U: m_u.png, E: m_e.png, O: m_o.png}
    bounce_px: 6                  # optional: hop while speaking, in the base's pixels

Every layer is an image of the base's size (RGBA; transparent where it draws nothing), laid over the
base. Openness scales the viseme's mouth vertically about its centre (precomputed levels).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import yaml

from renderer.background import read_image, to_bgra
from renderer.base import Viseme
from renderer.errors import AvatarError
from renderer.layers import bgra_premul
from renderer.rig import Rig, common_box, crop_layers, premul_layer

MANIFEST_NAMES = ("manifest.yaml", "manifest.yml", "manifest.json")
VISEME_KEYS = ("closed", "A", "I", "U", "E", "O")
_MOUTH_LEVELS = 6
_KNOWN = {"base", "eyes", "mouths", "bounce_px"}


def find_manifest(path: Path) -> Path:
    if path.is_file():
        return path
    if not path.is_dir():
        raise AvatarError(f"avatar.path: sprite folder {str(path)!r} does not exist")
    for name in MANIFEST_NAMES:
        if (path / name).is_file():
            return path / name
    raise AvatarError(f"avatar.path: sprite folder {str(path)!r} has no {' or '.join(MANIFEST_NAMES[::2])}")


def read_manifest(manifest: Path) -> dict[str, Any]:
    text = manifest.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if manifest.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise AvatarError(f"sprite manifest {str(manifest)!r}: cannot parse: {exc}") from None
    if not isinstance(data, dict):
        raise AvatarError(f"sprite manifest {str(manifest)!r}: expected a mapping with base, eyes, mouths")
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise AvatarError(
            f"sprite manifest {str(manifest)!r}: unknown key(s) {unknown}; expected {sorted(_KNOWN)}"
        )
    return data


def _section(
    data: dict[str, Any], key: str, need: tuple[str, ...], optional: tuple[str, ...], where: str
) -> dict[str, str]:
    sec = data.get(key)
    if not isinstance(sec, dict):
        raise AvatarError(
            f"sprite manifest {where}: '{key}' is missing or not a mapping (need {', '.join(need)})"
        )
    missing = [k for k in need if k not in sec]
    if missing:
        what = "viseme" if key == "mouths" else "eye state"
        raise AvatarError(
            f"sprite manifest {where}: {key}: missing {what}{'s' if len(missing) > 1 else ''} "
            f"{', '.join(repr(m) for m in missing)} (need {', '.join(need)})"
        )
    extra = sorted(set(sec) - set(need) - set(optional), key=str)
    if extra:
        raise AvatarError(
            f"sprite manifest {where}: {key}: unknown entr{'ies' if len(extra) > 1 else 'y'} {extra}"
        )
    for k, v in sec.items():
        if not isinstance(v, str) or not v:
            raise AvatarError(f"sprite manifest {where}: {key}.{k}: expected a file name, got {v!r}")
    return {str(k): v for k, v in sec.items()}


def _layer(folder: Path, name: str, key: str, where: str, size: tuple[int, int] | None) -> np.ndarray:
    path = folder / name
    if not path.is_file():
        raise AvatarError(f"sprite manifest {where}: {key}: file {str(path)!r} does not exist")
    img = to_bgra(read_image(path, f"sprite manifest {where}: {key}"))
    if size is not None and (img.shape[1], img.shape[0]) != size:
        raise AvatarError(
            f"sprite manifest {where}: {key}: {name} is {img.shape[1]}x{img.shape[0]} but the base is "
            f"{size[0]}x{size[1]}; every layer must have the base's size"
        )
    return img


def _scale_mouth(img: np.ndarray, f: float) -> np.ndarray:
    """The mouth layer squashed vertically to f of its height about its own centre (same canvas size)."""
    x0, y0, x1, y1 = common_box([img])
    crop = img[y0:y1, x0:x1]
    nh = max(1, round((y1 - y0) * f))
    small = cv2.resize(crop, (x1 - x0, nh), interpolation=cv2.INTER_AREA)
    out = np.zeros_like(img)
    cy = (y0 + y1) // 2
    top = cy - nh // 2
    out[top : top + nh, x0:x1] = small
    return out


def load_sprite_rig(path: Path, box: tuple[int, int, int, int]) -> Rig:
    manifest = find_manifest(path)
    folder = manifest.parent
    where = repr(str(manifest))
    data = read_manifest(manifest)
    if not isinstance(data.get("base"), str):
        raise AvatarError(f"sprite manifest {where}: 'base' (the body image) is missing")
    base = _layer(folder, data["base"], "base", where, None)
    size = (base.shape[1], base.shape[0])
    eyes_cfg = _section(data, "eyes", ("open", "closed"), ("half",), where)
    mouths_cfg = _section(data, "mouths", VISEME_KEYS, (), where)
    bounce = data.get("bounce_px", 0)
    if not isinstance(bounce, int | float) or not 0 <= bounce <= size[1] / 4:
        raise AvatarError(
            f"sprite manifest {where}: bounce_px: expected 0..{size[1] // 4} px, got {bounce!r}"
        )

    # Scale everything once to the size it will be drawn at.
    _, _, bw, bh = box
    s = min((bh + 4) / size[1], bw / size[0])
    out_size = (max(1, round(size[0] * s)), max(1, round(size[1] * s)))

    def load(name: str, key: str) -> np.ndarray:
        img = bgra_premul(_layer(folder, name, key, where, size))
        interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
        return cv2.resize(img, out_size, interpolation=interp)

    base_p = load(data["base"], "base")
    eye_open = load(eyes_cfg["open"], "eyes.open")
    eye_closed = load(eyes_cfg["closed"], "eyes.closed")
    eye_half = (
        load(eyes_cfg["half"], "eyes.half")
        if "half" in eyes_cfg
        else cv2.addWeighted(eye_open, 0.5, eye_closed, 0.5, 0)
    )
    mouth_imgs = {k: load(v, f"mouths.{k}") for k, v in mouths_cfg.items()}
    levels: list[np.ndarray] = [mouth_imgs["closed"]]
    for k in VISEME_KEYS[1:]:
        for i in range(_MOUTH_LEVELS):
            levels.append(_scale_mouth(mouth_imgs[k], 0.35 + 0.65 * i / (_MOUTH_LEVELS - 1)))
    eyes = crop_layers([eye_open, eye_half, eye_closed], 3)
    mouth_layers = crop_layers(levels, 3)
    mouths = {
        int(Viseme[k]): mouth_layers[1 + j * _MOUTH_LEVELS : 1 + (j + 1) * _MOUTH_LEVELS]
        for j, k in enumerate(VISEME_KEYS[1:])
    }
    return Rig(
        base=premul_layer(base_p),
        eyes=eyes,
        mouth_closed=mouth_layers[0],
        mouths=mouths,
        bounce_px=float(bounce) * s,
    )
