"""Fault injection points for chaos tests, the watchdog and the room supervisor: inert unless armed.

A point is armed in-process (`arm("clock.hang", room="r1")`) or, for a daemon started as a separate
process, through the environment: `VA_FAULTS="clock.hang@r1+5,render.error@*"` arms `clock.hang` for
room r1 five seconds after start and `render.error` for every room. Production code asks `fires(point,
room)` only behind the module-level `armed` flag, so an unarmed daemon pays one attribute read a frame.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

CLOCK_HANG = "clock.hang"  # the media clock stops ticking, as a hung render or encode would
CLOCK_CRASH = "clock.crash"  # the media clock thread dies with an exception
RENDER_ERROR = "render.error"  # every render raises (the clock repeats the last good frame)
RECORD_OPEN_ERROR = "record.open_error"  # a recording file cannot be opened (full disk, folder gone)
ROOM_PREPARE_ERROR = "room.prepare_error"  # a room's media path fails while it is prepared (start or reload)
# Every UNet pass of the face service that holds a frame of the room fails as CUDA out of memory would (the
# service process arms it from VA_FAULTS; "*" for every room).
FACE_OOM = "face.oom"
POINTS = (CLOCK_HANG, CLOCK_CRASH, RENDER_ERROR, RECORD_OPEN_ERROR, ROOM_PREPARE_ERROR, FACE_OOM)


class FaultInjected(RuntimeError):
    """Raised where a fault point fires."""


@dataclass(frozen=True, slots=True)
class _Fault:
    point: str
    room: str  # "*" for every room
    at: float  # monotonic time from which it fires


armed = False
_faults: list[_Fault] = []
_lock = threading.Lock()


def arm(point: str, room: str = "*", after_s: float = 0.0) -> None:
    global armed
    if point not in POINTS:
        raise ValueError(f"unknown fault point {point!r}; known: {', '.join(POINTS)}")
    with _lock:
        _faults.append(_Fault(point, room, time.monotonic() + after_s))
        armed = True


def disarm(point: str | None = None, room: str | None = None) -> None:
    global armed
    with _lock:
        _faults[:] = [f for f in _faults if not ((point is None or f.point == point)
                                                 and (room is None or f.room == room))]
        armed = bool(_faults)


def fires(point: str, room: str) -> bool:
    now = time.monotonic()
    return any(f.point == point and f.room in ("*", room) and now >= f.at for f in _faults)


def arm_from_env(value: str | None = None) -> None:
    """Arms what VA_FAULTS lists: comma-separated `point[@room][+seconds]`."""
    value = os.environ.get("VA_FAULTS", "") if value is None else value
    for item in filter(None, (x.strip() for x in value.split(","))):
        spec, _, delay = item.partition("+")
        point, _, room = spec.partition("@")
        try:
            arm(point, room or "*", float(delay) if delay else 0.0)
        except ValueError as exc:
            raise ValueError(f"VA_FAULTS: {item!r}: {exc}") from None
