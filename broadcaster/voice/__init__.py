"""Text to speech backends, text normalization and voice input.

`voice_for_room(room_cfg)` returns a room's Voice (`build_voice` for a bare VoiceConfig); they are imported
lazily so loading a config (which imports broadcaster.voice.config) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from broadcaster.voice.voice import Voice, VoiceError, build_voice, voice_for_room

__all__ = ["Voice", "VoiceError", "build_voice", "voice_for_room"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from broadcaster.voice import voice

        return getattr(voice, name)
    raise AttributeError(name)
