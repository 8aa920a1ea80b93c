"""Triage of chat, moderation, the talk track and the line queue."""

from broadcaster.director.core import Director, TriagedLine

__all__ = ["Director", "TriagedLine"]
