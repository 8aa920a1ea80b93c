"""What a room says next: triage of chat, the line queue, thanks, talk-track pacing, operator lines.

triage.py (pure: Event → line, thanks or drop reason) · queue.py (ranked, bounded, merged) ·
thanks.py (gift/follow batches, guards) · pacing.py (when the talk track may speak) · talk.py (the
script) · director.py (the Director the Show uses, composing them).
"""

from broadcaster.director.director import Director
from broadcaster.director.triage import TriagedLine

__all__ = ["Director", "TriagedLine"]
