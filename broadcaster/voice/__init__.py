"""Text to speech backends, text normalization and voice input.

`build_voice(cfg, sample_rate=, fps=, room=, store=)` returns the room's Voice; it is imported
lazily so loading a config (which imports broadcaster.voice.config) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from broadcaster.voice.voice import Voice, VoiceError, build_voice

__all__ = ["Voice", "VoiceError", "build_voice"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from broadcaster.voice import voice

        return getattr(voice, name)
    raise AttributeError(name)
