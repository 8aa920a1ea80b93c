"""`virtual-anchor avatar preview`: from a room config to a contact sheet, landmarks and a speaking clip."""

from __future__ import annotations

import json

import cv2
import yaml
from renderer_photos import hopper

from broadcaster.cli import main


def test_avatar_preview_command_writes_sheet_landmarks_and_clip(tmp_path, capsys) -> None:
    import av as pyav

    cv2.imwrite(str(tmp_path / "anchor.png"), hopper().image)
    room = {
        "id": "shop",
        "avatar": {"kind": "portrait", "path": "anchor.png"},
        "video": {"width": 854, "height": 480},
    }
    cfg = tmp_path / "rooms.yaml"
    cfg.write_text(yaml.safe_dump({"daemon": {"state_dir": str(tmp_path / "state")}, "rooms": [room]}))
    (tmp_path / "state").mkdir()
    out = tmp_path / "preview"
    assert main(["avatar", "preview", "-c", str(cfg), "shop", "--out", str(out), "--seconds", "3"]) == 0
    printed = capsys.readouterr().out
    assert "contact_sheet.png" in printed and "preview.mp4" in printed
    assert cv2.imread(str(out / "contact_sheet.png")) is not None
    assert "mouth_left" in json.loads((out / "landmarks.json").read_text())["points"]
    with pyav.open(str(out / "preview.mp4")) as c:
        assert {s.type for s in c.streams} == {"video", "audio"}
        assert c.streams.video[0].frames == 3 * 25
    # The room's landmark cache is filled, so the room itself will skip detection.
    assert list((tmp_path / "state" / "avatar-landmarks").glob("*.json"))


def test_avatar_preview_names_the_photo_when_there_is_no_face(tmp_path, capsys) -> None:
    import numpy as np

    cv2.imwrite(str(tmp_path / "wall.png"), np.full((300, 400, 3), 128, np.uint8))
    room = {"id": "shop", "avatar": {"kind": "portrait", "path": "wall.png"}}
    cfg = tmp_path / "rooms.yaml"
    cfg.write_text(yaml.safe_dump({"rooms": [room]}))
    assert main(["avatar", "preview", "-c", str(cfg), "shop", "--out", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert "wall.png" in err and "avatar.face_box" in err
