"""Config of a room's voice."""

from __future__ import annotations

from typing import Literal

from broadcaster.configbase import Model


class VoiceConfig(Model):
    backend: Literal["espeak"] = "espeak"
    voice: str = "cmn"
    rate_wpm: int = 175
