"""The talk track: a room's YAML script (segments, loops, intervals, time-of-day windows, variables) that fills silence.

File shape:

    variables: {promo: 今晚下单立减20元}
    segments:
      - name: opening          # `once`: played once, first
        once: true
        lines: ["大家好，欢迎来到直播间！"]
      - name: pitch            # plain segments loop, line by line, segment after segment
        lines: ["这款保温杯……", "{promo}！"]
      - name: reminder         # `every_s`: one line whenever it is due, before the loop continues
        every_s: 300
        lines: ["点点关注不迷路～"]
      - name: night            # `between`: only inside this local time window (may wrap midnight)
        between: ["22:00", "02:00"]
        lines: ["夜深了，大家早点休息哦。"]

`{name}` placeholders are filled from the file's variables, overridden by the room config's
`talk.variables`; unknown placeholders are left as written.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


class TalkTrackError(ValueError):
    """A talk track file that cannot be used; the message names the file and the problem."""


@dataclass(slots=True)
class Segment:
    name: str
    lines: list[str]
    once: bool = False
    every_s: float | None = None
    between: tuple[dt.time, dt.time] | None = None
    # state
    next_index: int = 0
    last_played: float = -float("inf")
    done: bool = False

    def active(self, now_local: dt.time) -> bool:
        if self.between is None:
            return True
        start, end = self.between
        if start <= end:
            return start <= now_local < end
        return now_local >= start or now_local < end  # wraps midnight


class _Vars(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _parse_time(value: Any, where: str) -> dt.time:
    try:
        h, m = str(value).split(":")
        return dt.time(int(h), int(m))
    except ValueError as exc:
        raise TalkTrackError(f"{where}: expected HH:MM, got {value!r}") from exc


@dataclass(slots=True)
class TalkTrack:
    segments: list[Segment]
    variables: dict[str, str] = field(default_factory=dict)
    _loop_pos: int = 0

    @classmethod
    def load(cls, path: Path, overrides: Mapping[str, str] | None = None) -> TalkTrack:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise TalkTrackError(f"{path}: cannot read talk track: {exc}") from exc
        return cls.from_dict(data, str(path), overrides)

    @classmethod
    def from_dict(cls, data: Any, where: str = "<talk>", overrides: Mapping[str, str] | None = None) -> TalkTrack:
        if not isinstance(data, dict) or not isinstance(data.get("segments"), list) or not data["segments"]:
            raise TalkTrackError(f"{where}: expected a mapping with a non-empty 'segments' list")
        variables = {str(k): str(v) for k, v in (data.get("variables") or {}).items()}
        variables.update(overrides or {})
        segments: list[Segment] = []
        for i, raw in enumerate(data["segments"]):
            at = f"{where}: segments[{i}]"
            if not isinstance(raw, dict):
                raise TalkTrackError(f"{at}: expected a mapping")
            unknown = set(raw) - {"name", "lines", "once", "every_s", "between"}
            if unknown:
                raise TalkTrackError(f"{at}: unknown key(s) {sorted(unknown)}")
            lines = raw.get("lines")
            if not isinstance(lines, list) or not lines or not all(isinstance(x, str) and x.strip() for x in lines):
                raise TalkTrackError(f"{at}.lines: expected a non-empty list of texts")
            between = raw.get("between")
            window = None
            if between is not None:
                if not isinstance(between, list) or len(between) != 2:
                    raise TalkTrackError(f"{at}.between: expected [HH:MM, HH:MM]")
                window = (_parse_time(between[0], f"{at}.between"), _parse_time(between[1], f"{at}.between"))
            every = raw.get("every_s")
            if every is not None and (not isinstance(every, (int, float)) or every <= 0):
                raise TalkTrackError(f"{at}.every_s: expected a positive number of seconds")
            segments.append(Segment(str(raw.get("name", f"segment{i}")), [x.strip() for x in lines],
                                    once=bool(raw.get("once", False)), every_s=every, between=window))
        return cls(segments, variables)

    def fill(self, text: str) -> str:
        return text.format_map(_Vars(self.variables))

    def next(self, now_mono: float, now_local: dt.time | None = None) -> tuple[str, str] | None:
        """(segment name, text) of the next script line, or None when no segment is active now."""
        now_local = now_local or dt.datetime.now().time()
        for seg in self.segments:  # unplayed `once` segments first, in file order
            if seg.once and not seg.done and seg.active(now_local):
                return seg.name, self._take(seg, now_mono)
        for seg in self.segments:  # then a due reminder (its clock starts at the first call)
            if seg.every_s is not None and seg.last_played == -float("inf"):
                seg.last_played = now_mono
            if seg.every_s is not None and seg.active(now_local) and now_mono - seg.last_played >= seg.every_s:
                return seg.name, self._take(seg, now_mono)
        loop = [s for s in self.segments if not s.once and s.every_s is None]
        for _ in range(len(loop)):
            seg = loop[self._loop_pos % len(loop)]
            if seg.active(now_local):
                text = self._take(seg, now_mono)
                if seg.next_index == 0:  # finished this segment: the loop moves on
                    self._loop_pos += 1
                return seg.name, text
            self._loop_pos += 1
        return None

    def _take(self, seg: Segment, now_mono: float) -> str:
        text = seg.lines[seg.next_index]
        seg.next_index = (seg.next_index + 1) % len(seg.lines)
        seg.last_played = now_mono
        if seg.once and seg.next_index == 0:
            seg.done = True
        return self.fill(text)
