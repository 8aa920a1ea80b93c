"""End-to-end rig: a room on air fed by the fake Bilibili server, streaming to a real RTMP listener, read back.

Shared by tests/e2e and bench/e2e_latency.py. The room is the product's own (`broadcaster.room.Room`
with its Show: director → brain → voice → stage → encoder → sinks); only the platform (the loopback
Bilibili fake from the danmaku tests), the ingest (FFmpeg's RTMP listener) and, for LLM answers, the
model server (the OpenAI-compatible SSE fake from the brain tests) are stand-ins.

Speech onsets are found in the audio that came back from the ingest, not in the room's logs: the
decoded track is cut into speech segments at silent gaps, and stream time is mapped back to the
room's monotonic clock through the sink's `base_time` (encoder time of the keyframe the connection
started at) and the media clock's start (frame n is due at t0 + n/fps, and sample s rides in frame
s // spf).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from broadcaster.config import RoomConfig
from broadcaster.demo import DEMO_DIR
from broadcaster.room import Room
from tests.brain.llm_fakes import FakeOpenAI
from tests.danmaku.dm_fakes import BiliWebFake, cmd_packet
from tests.support.media import Probe

W, H, FPS, RATE = 640, 360, 25, 44100
BANNED = "加微信"  # in the global moderation list; the rooms below also list it themselves
# |sample| above this (-40 dBFS) is audible: the same level the room's latency trail uses.
AUDIBLE = 0.01


# -- the platform side: Bilibili web commands, as the real server shapes them ----------------------


def danmu(uid: int, name: str, text: str, seq: int) -> dict[str, Any]:
    """A DANMU_MSG; `seq` makes the platform message id (uid:ts:rnd) unique."""
    ts = 1_700_000_000_000 + seq
    extra = json.dumps({"content": text}, ensure_ascii=False)
    meta = [0, 1, 25, 16777215, ts, seq, 0, "abcd", 0, 0, 0, "", 0, "{}", "{}",
            {"extra": extra, "user": {"uid": uid, "base": {"name": name, "face": ""}}}]
    return {"cmd": "DANMU_MSG:4:0:2:2:2:0", "info": [
        meta, text, [uid, name, 0, 0, 0, 10000, 1, ""], [], [12, 0, 5805790, ">50000"], ["", ""], 0, 0,
        None, {"ts": ts // 1000, "ct": "X"}, 0, 0, None, None, 0, 7, [3]]}


def gift(uid: int, name: str, gift_name: str, num: int, unit_gold: int, tid: str) -> dict[str, Any]:
    return {"cmd": "SEND_GIFT", "data": {
        "giftName": gift_name, "giftId": 31036, "num": num, "uid": uid, "uname": name, "face": "",
        "guard_level": 0, "price": unit_gold, "total_coin": unit_gold * num,
        "coin_type": "gold" if unit_gold else "silver", "tid": tid, "action": "投喂",
        "medal_info": {"medal_name": "", "medal_level": 0}}}


def super_chat(sc_id: int, uid: int, name: str, text: str, price: int) -> dict[str, Any]:
    return {"cmd": "SUPER_CHAT_MESSAGE", "roomid": BiliWebFake.REAL_ROOM, "data": {
        "id": sc_id, "uid": uid, "price": price, "message": text, "time": 60,
        "user_info": {"uname": name, "face": "", "guard_level": 0, "user_level": 10},
        "medal_info": {"medal_name": "", "medal_level": 0}}}


class Chat:
    """Viewers typing into the fake Bilibili room: every command goes out brotli-compressed over the WS."""

    def __init__(self, fake: BiliWebFake):
        self.fake = fake
        self._seq = 0
        self._uid = 5000
        self.last_uid = 0

    def next_uid(self) -> int:
        self._uid += 1
        return self._uid

    async def send(self, *commands: dict[str, Any], per_frame: int = 1) -> float:
        """Pushes the commands; returns the monotonic time just before the first byte left."""
        sent = time.monotonic()
        await self.fake.push([cmd_packet(c) for c in commands], per_frame=per_frame)
        return sent

    def comment(self, text: str, *, uid: int | None = None, name: str | None = None) -> dict[str, Any]:
        """A DANMU_MSG from a new viewer (or `uid`); its uid is kept in `last_uid`."""
        self._seq += 1
        self.last_uid = uid if uid is not None else self.next_uid()
        return danmu(self.last_uid, name or f"观众{self.last_uid}", text, self._seq)

    async def say(self, text: str, *, uid: int | None = None, name: str | None = None) -> float:
        return await self.send(self.comment(text, uid=uid, name=name))


# -- the model side: an OpenAI-compatible server streaming at a fixed token rate ------------------


@dataclass
class TimedLLM:
    """FakeOpenAI streaming `answer` one character per `token_s`, recording when each request arrived.

    Its time to first sentence (from the request to the piece that ends the first sentence) is
    known by construction: `ttfs_s`."""

    answer: str = "这款杯子很适合上班族和学生。出差的时候带着也很方便。"
    token_s: float = 0.02
    requests: list[float] = field(default_factory=list)
    server: FakeOpenAI | None = None

    @property
    def pieces(self) -> list[str]:
        return list(self.answer)

    @property
    def ttfs_s(self) -> float:
        first_end = min(i for i, c in enumerate(self.answer) if c in "。！？")
        return first_end * self.token_s  # piece i is written i × token_s after the request arrived

    async def start(self) -> TimedLLM:
        def script(_body: dict[str, Any]) -> list[str]:
            self.requests.append(time.monotonic())
            return self.pieces

        self.server = await FakeOpenAI(script=script, delay_s=self.token_s).start()
        return self

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return self.server.base_url

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop()


# -- the room ---------------------------------------------------------------------------------------


def room_config(
    fake: BiliWebFake,
    *,
    outputs: list[dict[str, Any]],
    audit: Path,
    llm_url: str | None = None,
    talk: Path | None = None,
    talk_gap_s: float = 1.5,
    triage: dict[str, Any] | None = None,
    cache: dict[str, Any] | None = None,
    voice: dict[str, Any] | None = None,
    room_id: str = "e2e",
) -> RoomConfig:
    """A demo-product room on a small canvas: Bilibili web chat from the fake, the demo KB, espeak."""
    brain: dict[str, Any] = {
        "kb": {"dir": str(DEMO_DIR / "kb"), "check_interval_s": 0},
        "cache": {"enabled": True, **(cache or {})},
    }
    director: dict[str, Any] = {"triage": {"gift_batch_s": 2.0, "gift_batch_names": 5, **(triage or {})}}
    if llm_url is not None:
        brain["llm"] = {"backend": "openai", "base_url": llm_url, "model": "fake", "first_token_timeout_s": 5.0,
                        "total_timeout_s": 20.0}
    if talk is not None:
        director["talk"] = {"file": str(talk), "gap_s": talk_gap_s}
    return RoomConfig.model_validate({
        "id": room_id,
        "video": {"width": W, "height": H, "fps": FPS, "bitrate_kbps": 600, "preset": "ultrafast"},
        "audio": {"sample_rate": RATE},
        "outputs": outputs,
        "voice": {"backend": "espeak", "voice": "cmn", **(voice or {})},
        "sources": [{
            "type": "bilibili_web", "room_id": 5, "api_base": fake.base, "nav_base": fake.base,
            "home_url": fake.base + "/", "scheme": "ws", "heartbeat_s": 5.0, "reconnect_delay_s": 0.1,
            "reconnect_max_delay_s": 0.5, "silent_after_s": None,
        }],
        "director": director,
        "brain": brain,
        "moderation": {"words": [BANNED], "action": "replace"},
        "audit": {"path": str(audit)},
    })


async def until(pred: Callable[[], bool], timeout: float, what: str, interval: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for: {what}")
        await asyncio.sleep(interval)


async def wait_ready(room: Room, fake: BiliWebFake, timeout: float = 60.0) -> None:
    """On air, chat connected, and the FAQ answers and talk track voiced into the utterance cache."""
    assert room.show is not None
    await asyncio.wait_for(fake.connected.wait(), timeout)
    warm = [t for t in room.show._tasks if t.get_name().startswith("warm-")]
    if warm:
        await asyncio.wait_for(asyncio.shield(warm[0]), timeout)
    await until(lambda: all(s.packets_written > 0 for s in room.sinks), timeout, "every sink writing")


def trail_of(room: Room, pred: Callable[[Any], bool]) -> Any | None:
    assert room.show is not None
    return next((t for t in room.show.trails if pred(t)), None)


async def wait_trail(room: Room, pred: Callable[[Any], bool], timeout: float, what: str) -> Any:
    """Waits until a finished line matching pred (its last sentence played) is in show.trails."""
    await until(lambda: trail_of(room, pred) is not None, timeout, what)
    return trail_of(room, pred)


def asked(text: str) -> Callable[[Any], bool]:
    return lambda t: t.line.event is not None and t.line.text == text


def asked_by(uid: int) -> Callable[[Any], bool]:
    """The line answering viewer `uid` (Chat gives every comment a new viewer)."""
    return lambda t: t.line.event is not None and t.line.event.user is not None and t.line.event.user.id == str(uid)


def trail_source(trail: Any) -> str:
    """Where the line's content came from (ignoring a super chat's thank-you preface)."""
    return next((s.source for s in trail.sentences if s.source != "script"),
                trail.sentences[0].source if trail.sentences else "none")


def handed_latency(trail: Any) -> float | None:
    """Comment received → first audible packet handed to a sink, from the room's own latency trail."""
    if trail.received is None or not trail.handed:
        return None
    return min(trail.handed.values()) - trail.received


# -- reading the stream back -----------------------------------------------------------------------


def speech_segments(pcm: np.ndarray, rate: int, *, level: float = AUDIBLE, gap_s: float = 0.35,
                    window_s: float = 0.005) -> list[tuple[int, int]]:
    """(first, end) sample indexes of speech: windows whose peak is audible, joined across gaps < gap_s.

    espeak pauses ~0.1–0.3 s at commas and between the sentences of one line; answers are seconds apart."""
    win = max(1, int(window_s * rate))
    n = pcm.shape[0] // win
    if n == 0:
        return []
    peaks = np.abs(pcm[: n * win]).reshape(n, win).max(axis=1)
    loud = np.flatnonzero(peaks > level)
    if loud.size == 0:
        return []
    max_gap = int(gap_s / window_s)
    breaks = np.flatnonzero(np.diff(loud) > max_gap)
    starts = np.concatenate(([loud[0]], loud[breaks + 1]))
    ends = np.concatenate((loud[breaks], [loud[-1]])) + 1
    out = []
    for s, e in zip(starts, ends, strict=True):
        seg = np.abs(pcm[s * win : e * win])
        first = s * win + int(np.flatnonzero(seg > level)[0])  # the first audible sample, not the window
        out.append((first, int(e * win)))
    return out


@dataclass
class Received:
    """The decoded audio of a received stream, placed on the room's monotonic clock."""

    probe: Probe
    t0: float  # monotonic time frame 0 of the room was due
    base_time: float  # encoder time the sink's connection started at
    segments: list[tuple[int, int]]

    @classmethod
    def read(cls, probe: Probe, room: Room, sink_index: int = 0, t0: float | None = None) -> Received:
        return cls(probe, room_t0(room) if t0 is None else t0, room.sinks[sink_index].base_time,
                   speech_segments(probe.pcm, probe.sample_rate))

    def stream_time(self, index: int) -> float:
        return self.probe.audio_start + index / self.probe.sample_rate

    def mono(self, stream_t: float) -> float:
        """Stream time → when the media clock was due to play it (monotonic)."""
        return self.t0 + self.base_time + stream_t

    def stream_at(self, mono: float) -> float:
        return mono - self.t0 - self.base_time

    def onset_after(self, mono: float, slack_s: float = 0.02) -> tuple[float, float] | None:
        """(onset, end) monotonic times of the first speech segment starting at or after `mono`."""
        for first, end in self.segments:
            if self.mono(self.stream_time(first)) >= mono - slack_s:
                return self.mono(self.stream_time(first)), self.mono(self.stream_time(end))
        return None

    def speech_between(self, a_mono: float, b_mono: float) -> list[tuple[float, float]]:
        """Speech segments (monotonic onset, end) that overlap [a, b]."""
        out = []
        for first, end in self.segments:
            s, e = self.mono(self.stream_time(first)), self.mono(self.stream_time(end))
            if e >= a_mono and s <= b_mono:
                out.append((s, e))
        return out


class ClockWatch:
    """Observes when the stage is asked for each frame, to learn the media clock's t0 from outside.

    Frame n is asked for at t0 + n/fps plus however late the clock runs, so the smallest
    (asked − n/fps) over the first frames is t0 (to within the time of one call). Install it on a
    Room before `start()`; without it `room.started_at` (taken just after the clock thread started)
    stands in, a few milliseconds off."""

    def __init__(self, room: Room, frames: int = 100):
        self.fps = room.cfg.video.fps
        self.t0: float | None = None
        self._left = frames
        tick = room.stage.tick

        def watched(n: int):
            if self._left > 0:
                self._left -= 1
                t = time.monotonic() - n / self.fps
                self.t0 = t if self.t0 is None else min(self.t0, t)
            return tick(n)

        room.stage.tick = watched  # type: ignore[method-assign]
        room._e2e_clock_watch = self  # type: ignore[attr-defined]


def room_t0(room: Room) -> float:
    """When the room's frame 0 was due (monotonic)."""
    watch = getattr(room, "_e2e_clock_watch", None)
    if watch is not None and watch.t0 is not None:
        return watch.t0
    return room.started_at


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, float), q)) if values else float("nan")
