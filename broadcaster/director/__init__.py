"""What a room says next: triage of chat, the line queue, thanks, talk-track pacing, operator lines.

triage.py (pure: Event → line, thanks or drop reason) · queue.py (ranked, bounded, merged) ·
thanks.py (gift/follow batches, guards) · pacing.py (when the talk track may speak) · talk.py (the
script) · director.py (the Director the Show uses, composing them). They are imported lazily, so that
loading the config model (broadcaster.director.config) does not pull in rapidfuzz and the moderation lists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from broadcaster.director.director import Director
    from broadcaster.director.triage import TriagedLine

__all__ = ["Director", "TriagedLine"]


def __getattr__(name: str) -> Any:
    if name == "Director":
        from broadcaster.director.director import Director

        return Director
    if name == "TriagedLine":
        from broadcaster.director.triage import TriagedLine

        return TriagedLine
    raise AttributeError(name)
