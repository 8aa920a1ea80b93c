"""Answers: answer cache, knowledge base, LLM backends and the grounding guard.

`Brain`, `Sentence` and `AuditLog` are imported lazily so that loading the config model
(broadcaster.brain.config) does not pull in jieba, pypinyin and friends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from broadcaster.brain.audit import AuditLog
    from broadcaster.brain.core import Brain, Sentence

__all__ = ["AuditLog", "Brain", "Sentence"]


def __getattr__(name: str) -> Any:
    if name == "AuditLog":
        from broadcaster.brain.audit import AuditLog

        return AuditLog
    if name in ("Brain", "Sentence"):
        from broadcaster.brain import core

        return getattr(core, name)
    raise AttributeError(name)
