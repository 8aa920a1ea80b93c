"""Helpers for the director tests: a settable clock, configs, events and the drop metric."""

from __future__ import annotations

from typing import Any

from broadcaster import metrics
from broadcaster.brain.config import ModerationConfig
from broadcaster.brain.moderation import Moderator, moderator_from_config
from broadcaster.director import Director
from broadcaster.director.config import DirectorConfig
from danmaku.event import Event, EventKind, User


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def cfg(**over: Any) -> DirectorConfig:
    """A DirectorConfig from its sections (triage=…, talk=…, operator=…)."""
    return DirectorConfig.model_validate(over)


def moderator(**over: Any) -> Moderator:
    return moderator_from_config(ModerationConfig.model_validate(over))


def director(room: str, clock: Clock | None = None, *, moderation: dict[str, Any] | None = None, **over: Any) -> Director:
    kw: dict[str, Any] = {} if clock is None else {"fps_clock": clock}
    return Director(room, cfg(**over), moderator(**(moderation or {})), **kw)


def ev(clock: Clock, kind: EventKind, text: str = "", user: str = "u", value_milli: int = 0, msg_id: str = "",
       **extra: Any) -> Event:
    """An event from viewer `user` (id and name alike) that arrived now on `clock`."""
    return Event("test", "room", kind, User(user, user), text, value_milli, msg_id=msg_id, extra=extra,
                 received_mono=clock.t)


def metric_drops(room: str, reason: str) -> float:
    return metrics.DROPS.labels(room, reason)._value.get()
