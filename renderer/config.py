"""Config of a room's avatar and overlays."""

from __future__ import annotations

from typing import Literal

from broadcaster.configbase import Model


class AvatarConfig(Model):
    kind: Literal["builtin"] = "builtin"
    seed: int = 0
