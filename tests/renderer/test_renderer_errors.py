"""Bad avatar input fails at load with an error naming the key, the file and what to do."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml
from pydantic import ValidationError
from renderer_faces import write_sprite_set
from renderer_speech import FPS

from renderer.config import AvatarConfig
from renderer.errors import AvatarError
from renderer.factory import build_avatar


def _faceless(tmp_path: Path) -> Path:
    img = np.zeros((480, 640, 3), np.uint8)
    img[:] = np.linspace(40, 200, 640, dtype=np.uint8)[None, :, None]
    cv2.circle(img, (320, 240), 60, (90, 160, 90), -1)  # a green disc, nothing face-like
    path = tmp_path / "no face.jpg"
    cv2.imwrite(str(path), img)
    return path


def test_portrait_without_face_names_file_and_face_box(tmp_path: Path) -> None:
    path = _faceless(tmp_path)
    with pytest.raises(AvatarError) as err:
        build_avatar(AvatarConfig(kind="portrait", path=path), 854, 480, FPS)
    msg = str(err.value)
    assert str(path) in msg and "face_box" in msg and "no usable face" in msg


def test_portrait_face_box_without_a_face_is_refused_not_guessed(tmp_path: Path) -> None:
    """face_box only tells the landmark model where to look: with no face there, the room must not start."""
    path = _faceless(tmp_path)
    with pytest.raises(AvatarError) as err:
        build_avatar(AvatarConfig(kind="portrait", path=path, face_box=(260, 170, 120, 140)), 854, 480, FPS)
    msg = str(err.value)
    assert str(path) in msg and "face_box" in msg and "avatar.landmarks" in msg


def test_face_box_outside_photo(tmp_path: Path) -> None:
    path = _faceless(tmp_path)
    with pytest.raises(AvatarError, match=r"avatar\.face_box .* outside the photo"):
        build_avatar(AvatarConfig(kind="portrait", path=path, face_box=(600, 400, 100, 100)), 854, 480, FPS)


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    # Paths reach the renderer resolved; a missing file is refused when the config is read, naming it.
    with pytest.raises(ValidationError, match=r"file .*nope\.png.* does not exist"):
        AvatarConfig(kind="portrait", path=tmp_path / "nope.png")
    with pytest.raises(ValidationError, match=r"file .*bg\.png.* does not exist"):
        AvatarConfig(background={"kind": "image", "path": str(tmp_path / "bg.png")})
    with pytest.raises(ValidationError, match=r"file .*logo\.png.* does not exist"):
        AvatarConfig(overlays={"logo": {"path": str(tmp_path / "logo.png")}})
    with pytest.raises(ValidationError, match=r"file .*font\.ttf.* does not exist"):
        AvatarConfig(overlays={"subtitle": {"font": str(tmp_path / "font.ttf")}})
    # A file that exists but is no image fails when the avatar is built, naming the key.
    (tmp_path / "text.png").write_text("not an image")
    with pytest.raises(AvatarError, match=r"avatar\.path.*not an image"):
        build_avatar(AvatarConfig(kind="portrait", path=tmp_path / "text.png"), 854, 480, FPS)


def test_config_checks_files_when_the_loader_gives_the_folder(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match=r"file .*missing\.jpg.* does not exist"):
        AvatarConfig.model_validate(
            {"kind": "portrait", "path": "missing.jpg"}, context={"base_dir": tmp_path}
        )
    with pytest.raises(ValidationError, match="needs 'path'"):
        AvatarConfig.model_validate({"kind": "sprite"})
    with pytest.raises(ValidationError, match="colour like"):
        AvatarConfig.model_validate({"background": {"colour": "blue"}})
    with pytest.raises(ValidationError, match="blink_min_s"):
        AvatarConfig.model_validate({"idle": {"blink_min_s": 7, "blink_max_s": 3}})
    with pytest.raises(ValidationError, match="lead_frames"):
        AvatarConfig.model_validate({"lead_frames": 2})
    with pytest.raises(ValidationError, match="Extra inputs"):
        AvatarConfig.model_validate({"kindd": "builtin"})


def test_room_config_error_names_the_avatar_key(tmp_path: Path) -> None:
    from broadcaster.config import ConfigError, parse_config

    with pytest.raises(ConfigError) as err:
        parse_config({"rooms": [{"id": "r1", "avatar": {"kind": "portrait"}}]}, tmp_path / "rooms.yaml")
    assert "rooms[0].avatar" in str(err.value) and "path" in str(err.value)


def test_sprite_manifest_missing_viseme_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    write_sprite_set(folder, drop="O")
    with pytest.raises(AvatarError) as err:
        build_avatar(AvatarConfig(kind="sprite", path=folder), 854, 480, FPS)
    msg = str(err.value)
    assert "manifest.yaml" in msg and "'O'" in msg and "viseme" in msg


def test_sprite_manifest_problems_are_named(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    write_sprite_set(folder)
    manifest = yaml.safe_load((folder / "manifest.yaml").read_text())

    def broken(change) -> str:
        m = yaml.safe_load(yaml.safe_dump(manifest))
        change(m)
        (folder / "manifest.yaml").write_text(yaml.safe_dump(m))
        with pytest.raises(AvatarError) as err:
            build_avatar(AvatarConfig(kind="sprite", path=folder), 854, 480, FPS)
        return str(err.value)

    assert "mouths.A" in broken(lambda m: m["mouths"].update(A="gone.png")) and "gone.png" in broken(
        lambda m: m["mouths"].update(A="gone.png")
    )
    assert "'closed'" in broken(lambda m: m["eyes"].pop("closed"))
    assert "unknown key" in broken(lambda m: m.update(mouth={}))
    assert "'base'" in broken(lambda m: m.pop("base"))
    small = np.zeros((10, 10, 4), np.uint8)
    cv2.imwrite(str(folder / "tiny.png"), small)
    msg = broken(lambda m: m["eyes"].update(open="tiny.png"))
    assert "eyes.open" in msg and "10x10" in msg and "base's size" in msg
    (folder / "manifest.yaml").unlink()
    with pytest.raises(AvatarError, match=r"has no manifest\.yaml"):
        build_avatar(AvatarConfig(kind="sprite", path=folder), 854, 480, FPS)


def test_canvas_must_be_even() -> None:
    with pytest.raises(AvatarError, match="even"):
        build_avatar(AvatarConfig(), 853, 480, FPS)
