"""Sinks mux the encoder's packets, each on its own thread behind a bounded queue: RTMP ingests and recordings."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import random
import threading
import time
from collections import deque
from datetime import datetime
from fractions import Fraction
from pathlib import Path

import av

from broadcaster import faults, metrics
from broadcaster.config import RecordOutput, RtmpOutput
from broadcaster.output import flv, rtmp
from broadcaster.output.encoder import EncodedPacket, Encoder
from broadcaster.paths import recording_file
from common.config import redact_url
from common.retry import Backoff

log = logging.getLogger(__name__)


class _Disconnected(Exception):
    pass


class Sink:
    """Base: a thread that takes packets from a bounded queue and writes them to a container.

    put() never blocks the media clock. When more than `max_queue_s` of media waits (slow or dead
    peer), the queue is emptied and the sink skips to the next keyframe, counting what it dropped.
    Every (re)opened container starts its timestamps at 0 from a video keyframe.
    """

    kind = "sink"

    def __init__(self, room: str, name: str, encoder: Encoder, max_queue_s: float):
        self.room, self.name = room, name
        self._encoder = encoder
        self._max_queue_s = max_queue_s
        self._queue: deque[EncodedPacket] = deque()
        self._cond = threading.Condition()
        self._need_key = True  # drop until a keyframe: at start, after a drop, after a reconnect
        self._closing = False
        self._abort = False
        self._thread = threading.Thread(target=self._run, name=f"sink-{room}-{name}", daemon=True)
        self.connected = False
        self.reconnects = 0
        self.failed_attempts = 0
        self.dropped = 0
        self.bytes = 0
        self.packets_written = 0
        self.first_packet_at: float | None = None  # monotonic time the current connection wrote media
        self.base_time = 0.0  # encoder time (s) of the keyframe the current connection/file starts at
        self.last_error = ""
        self._m_connected = metrics.SINK_CONNECTED.labels(room, name)
        self._m_bytes = metrics.SINK_BYTES.labels(room, name)
        self._m_reconnects = metrics.SINK_RECONNECTS.labels(room, name)
        self._m_queue = metrics.SINK_QUEUE.labels(room, name)

    # -- clock thread ---------------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def put(self, packets: list[EncodedPacket]) -> None:
        if not packets:
            return
        with self._cond:
            self._queue.extend(packets)
            if self._queued_seconds() > self._max_queue_s:
                self._drop_queue("queue_full")
            self._m_queue.set(self._queued_seconds())
            self._cond.notify()

    def _queued_seconds(self) -> float:
        if len(self._queue) < 2:
            return 0.0
        return self._queue[-1].time - self._queue[0].time

    def _drop_queue(self, why: str) -> None:
        n = len(self._queue)
        if n:
            self._queue.clear()
            self.dropped += n
            metrics.SINK_DROPPED.labels(self.room, self.name, why).inc(n)
        self._need_key = True

    def close(self, timeout: float = 5.0) -> None:
        """Writes what is queued (bounded by timeout), then the trailer, and stops the thread."""
        with self._cond:
            self._closing = True
            self._cond.notify()
        self._thread.join(timeout)
        if self._thread.is_alive():
            with self._cond:
                self._abort = True
                self._cond.notify()
            self._thread.join(2.0)

    def status(self) -> dict:
        return {
            "name": self.name,
            "kind": self.kind,
            "target": self.display_target(),
            "connected": self.connected,
            "reconnects": self.reconnects,
            "failed_attempts": self.failed_attempts,
            "dropped_packets": self.dropped,
            "bytes": self.bytes,
            "last_error": self.last_error,
        }

    def display_target(self) -> str:
        raise NotImplementedError

    @property
    def taking(self) -> bool:
        """True while packets put now reach the peer or file: connected and past the keyframe it waits for
        (a sink that is down or resyncing drops them, so it must not be counted as having received them)."""
        return self.connected and not self._need_key

    def _sleep(self, delay: float) -> None:
        """Waits `delay` seconds on the sink's own schedule: new packets (put() notifies every frame) do not
        cut the wait short; only closing does. Whatever is queued meanwhile is dropped (nobody can take it)."""
        end = time.monotonic() + delay
        while not self._done():
            with self._cond:
                self._drop_queue("disconnected")
                left = end - time.monotonic()
                if left <= 0:
                    return
                self._cond.wait(min(left, 0.5))

    # -- sink thread ----------------------------------------------------------------------------
    def _take(self, timeout: float = 0.5) -> EncodedPacket | None:
        """Next packet; None on timeout or when closing with an empty queue."""
        with self._cond:
            while not self._queue:
                if self._closing or self._abort:
                    return None
                self._cond.wait(timeout)
                if not self._queue:
                    return None
            return self._queue.popleft()

    def _done(self) -> bool:
        with self._cond:
            return self._abort or (self._closing and not self._queue)

    def _run(self) -> None:
        raise NotImplementedError

    def _mux_session(self, write, should_rotate=None) -> None:
        """Writes packets (rebased to start at 0) with write(pkt, pts, dts) until closing, an error
        (write raises _Disconnected) or should_rotate() says so at a keyframe."""
        v_base = a_base = 0
        while not self._done():
            pkt = self._take()
            if pkt is None:
                continue
            if self._need_key:
                if not (pkt.video and pkt.keyframe):
                    self.dropped += 1
                    metrics.SINK_DROPPED.labels(self.room, self.name, "wait_keyframe").inc()
                    continue
                self._need_key = False
                self.base_time = pkt.time
                v_base = pkt.dts
                # The audio packet that covers this keyframe's start stays; earlier ones are dropped.
                a_base = round(pkt.time * self._encoder.sample_rate)
            if pkt.video:
                if should_rotate is not None and pkt.keyframe and self.packets_written and should_rotate(pkt):
                    with self._cond:
                        self._queue.appendleft(pkt)
                    return
                base = v_base
            else:
                if pkt.pts < a_base:  # keeps every timestamp ≥ 0, so muxers never shift the timeline
                    continue
                base = a_base
            write(pkt, pkt.pts - base, pkt.dts - base)
            if self.first_packet_at is None:
                self.first_packet_at = time.monotonic()
            self.packets_written += 1
            self.bytes += len(pkt.data)
            self._m_bytes.inc(len(pkt.data))


    def _set_connected(self, value: bool) -> None:
        self.connected = value
        self._m_connected.set(1 if value else 0)


class RtmpSink(Sink):
    kind = "rtmp"

    def __init__(self, room: str, cfg: RtmpOutput, encoder: Encoder, index: int, rng: random.Random | None = None):
        url = cfg.url.get_secret_value()
        super().__init__(room, cfg.name or f"rtmp{index}", encoder, cfg.queue_seconds)
        self._url = url
        self._cfg = cfg
        self._backoff = Backoff(cfg.reconnect_delay_s, cfg.reconnect_max_delay_s, factor=1.5, factor_jitter=0.05, rng=rng)
        target = rtmp.parse_url(url)
        self._host, self._port = target.host, target.port
        video, audio = encoder.video_cfg, encoder.audio_cfg
        self._headers = [
            (flv.SCRIPT, flv.metadata(width=video.width, height=video.height, fps=video.fps,
                                      video_kbps=video.bitrate_kbps, sample_rate=audio.sample_rate,
                                      audio_kbps=audio.bitrate_kbps, encoder="virtual-anchor")),
            (flv.AUDIO, flv.audio_sequence_header(encoder.audio_stream.codec_context.extradata)),
            (flv.VIDEO, flv.video_sequence_header(encoder.video_stream.codec_context.extradata)),
        ]

    def display_target(self) -> str:
        return redact_url(self._url)

    def _scrub(self, exc: BaseException) -> str:
        """Errors may quote the URL they failed on; the stream key must not reach logs or status."""
        return str(exc).replace(self._url, self.display_target()) or type(exc).__name__

    def _connect(self) -> rtmp.Publisher:
        publisher = rtmp.Publisher(self._url, self._cfg.timeout_s)
        try:
            publisher.connect()
            for mtype, payload in self._headers:  # metadata, then AAC and AVC sequence headers, at 0
                publisher.send(mtype, 0, payload)
        except BaseException:
            publisher.close()
            raise
        return publisher

    def _wait(self, delay: float) -> None:
        self._sleep(delay)  # while down, nothing queued is worth keeping

    def _run(self) -> None:
        attempts = 0
        while not self._done():
            try:
                publisher = self._connect()
            except (OSError, rtmp.RtmpError) as exc:
                attempts += 1
                self.failed_attempts += 1
                self.last_error = self._scrub(exc)
                if self._cfg.max_retries and attempts > self._cfg.max_retries:
                    log.error("sink %s: giving up after %d attempts: %s", self.name, attempts - 1, self.last_error)
                    return
                if isinstance(exc, rtmp.Unreachable):
                    # Nothing answered, so a retry costs the ingest nothing: poll at the base delay (capped
                    # at 1 s) and the stream is back within about a second of the server's return. The
                    # growing OBS backoff paces only attempts the server saw (rejected, broke off).
                    delay = min(1.0, self._cfg.reconnect_delay_s)
                else:
                    delay = self._backoff.next_delay()
                if attempts == 1 or attempts % 60 == 0 or not isinstance(exc, rtmp.Unreachable):
                    log.warning("sink %s: connect to %s failed (%s); retrying in %.1fs (attempt %d)", self.name,
                                self.display_target(), self.last_error, delay, attempts)
                self._wait(delay)
                continue
            if attempts or self.reconnects or self.packets_written:
                self.reconnects += 1
                self._m_reconnects.inc()
            attempts = 0
            self._backoff.reset()
            with self._cond:
                self._need_key = True
            self.first_packet_at = None
            self._set_connected(True)
            log.info("sink %s: publishing to %s", self.name, self.display_target())
            try:
                self._mux_session(lambda pkt, pts, dts, p=publisher: self._send(p, pkt, pts, dts))
            except _Disconnected as exc:
                self.last_error = self._scrub(exc.__cause__ or exc)
                log.warning("sink %s: connection lost (%s); reconnecting", self.name, self.last_error)
                publisher.close()
                self._set_connected(False)
                self._wait(min(1.0, self._cfg.reconnect_delay_s))
                continue
            publisher.close()
            self._set_connected(False)
            return

    @staticmethod
    def _send(publisher: rtmp.Publisher, pkt: EncodedPacket, pts: int, dts: int) -> None:
        to_ms = pkt.time_base * 1000
        ts = round(dts * to_ms)
        try:
            if pkt.video:
                publisher.send(flv.VIDEO, ts, flv.video_tag(pkt.data, pkt.keyframe, round(pts * to_ms) - ts))
            else:
                publisher.send(flv.AUDIO, ts, flv.audio_tag(pkt.data))
        except (OSError, rtmp.RtmpError) as exc:
            raise _Disconnected(str(exc)) from exc


RECORD_FORMATS = {".flv": "flv", ".mkv": "matroska", ".ts": "mpegts", ".mp4": "mp4"}

# Why a recording cannot be written, by the errno that said so: the fault a sink reports and the metric's label.
_FAULT_REASONS = {
    errno.ENOSPC: "disk_full", errno.EDQUOT: "disk_full", errno.EFBIG: "file_too_big", errno.EROFS: "read_only",
    errno.EACCES: "permission", errno.EPERM: "permission", errno.ENOENT: "folder_missing",
    errno.ENOTDIR: "folder_missing", errno.EIO: "io_error",
}
_STABLE_S = 10.0  # media a file must take without an error before the retry backoff starts over


class _Deleted(OSError):
    """The file being recorded was deleted, or its folder removed: everything written to it goes nowhere."""


def fault_reason(exc: BaseException) -> str:
    if isinstance(exc, _Deleted):
        return "deleted"
    return _FAULT_REASONS.get(getattr(exc, "errno", None) or 0, "error")


class RecordSink(Sink):
    """Records to files, rotating at a keyframe after rotate_seconds or rotate_bytes; never drops for speed
    unless the disk falls more than 10 s behind.

    A file that cannot be opened or written (a full disk, a read-only mount, its folder deleted) is retried on a
    backoff; the fault is logged and shown in status once per change of reason, not once per try, and every try
    is counted (va_sink_faults). A try that got nothing into its file leaves no empty file behind.
    """

    kind = "record"

    def __init__(self, room: str, cfg: RecordOutput, encoder: Encoder, index: int, rng: random.Random | None = None):
        super().__init__(room, cfg.name or f"record{index}", encoder, max_queue_s=10.0)
        self._cfg = cfg
        self._segment = 0
        self.files: list[Path] = []
        self._bytes_at_open = 0
        self._file_packets = 0  # packets the current file took
        self.fault = ""  # why the recording is failing now (a fault_reason), "" while it records
        self.fault_since: float | None = None  # wall time the current fault began
        self._fault_tries = 0  # failed tries since it began
        # A disk that is full or a folder that went away: retry soon, then less often.
        self._backoff = Backoff(1.0, 30.0, factor=2.0, wait_jitter=0.1, rng=rng)

    def display_target(self) -> str:
        return str(self._cfg.path)

    def status(self) -> dict:
        return {**super().status(), "fault": self.fault, "fault_since": self.fault_since}

    def _next_path(self) -> Path:
        """The next segment's file; an existing recording (a restart, a reload) is never overwritten."""
        path = recording_file(self._cfg.path, self._segment, datetime.now())
        self._segment += 1
        k = 1
        while path.exists():
            path = path.with_name(f"{path.stem.rsplit('~', 1)[0]}~{k}{path.suffix}")
            k += 1
        return path

    def _open_container(self):
        path = self._next_path()
        if faults.armed and faults.fires(faults.RECORD_OPEN_ERROR, self.room):
            raise OSError(f"{faults.RECORD_OPEN_ERROR} (injected) for {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        fmt = RECORD_FORMATS.get(path.suffix.lower(), "flv")
        # flush_packets: every packet goes to the OS as it is muxed, so a killed daemon (SIGKILL, OOM) loses
        # nothing the kernel holds; fragmented MP4 closes a fragment at every keyframe (at most one GOP lost).
        options = {"flush_packets": "1"}
        if fmt == "mp4":
            options["movflags"] = "frag_keyframe+empty_moov+default_base_moof"
        container = av.open(str(path), "w", format=fmt, container_options=options)
        vstream = container.add_stream_from_template(self._encoder.video_stream)
        astream = container.add_stream_from_template(self._encoder.audio_stream)
        vstream.time_base = astream.time_base = Fraction(1, 1000)
        self.files.append(path)
        self._bytes_at_open = self.bytes
        self._file_packets = 0
        return container, vstream, astream

    def _should_rotate(self, pkt: EncodedPacket) -> bool:
        """Rotation by media time (what the file holds), not wall time, and by size; checked at keyframes."""
        if self._cfg.rotate_seconds and pkt.time - self.base_time >= self._cfg.rotate_seconds - 1e-6:
            return True
        return bool(self._cfg.rotate_bytes and self.bytes - self._bytes_at_open >= self._cfg.rotate_bytes)

    def _packet_waiting(self) -> bool:
        """Blocks until a packet waits (True) or the sink is done (False): no empty files at the end."""
        with self._cond:
            while not self._queue:
                if self._closing or self._abort:
                    return False
                self._cond.wait(0.5)
            return not self._abort

    def _fail(self, exc: BaseException, what: str) -> None:
        """One failed try: counted, logged when its reason differs from the fault before (a disk full for hours
        is one line), then the backoff's wait, dropping what arrives meanwhile (the room stays on air)."""
        reason = fault_reason(exc)
        self.last_error = str(exc)
        self.failed_attempts += 1
        self._fault_tries += 1
        metrics.SINK_FAULTS.labels(self.room, self.name, reason).inc()
        delay = self._backoff.next_delay()
        if reason != self.fault:
            log.error("sink %s: %s: %s; the room stays on air, retrying in %.1fs and then less often (%s)",
                      self.name, what, exc, delay, reason, extra={"room": self.room, "reason": reason})
            self.fault, self.fault_since = reason, time.time()
            self._fault_tries = 1
        else:
            log.debug("sink %s: %s: %s; retry in %.1fs (try %d)", self.name, what, exc, delay, self._fault_tries)
        self._sleep(delay)

    def _took(self, pkt: EncodedPacket, path: Path) -> None:
        """A packet is in the file. A fault is over (logged once) when a whole GOP made it, its next keyframe
        too (a full disk still takes a small packet now and then); after _STABLE_S the backoff starts over."""
        self._file_packets += 1
        if self.fault and pkt.video and pkt.keyframe and self._file_packets > 1:
            log.info("sink %s: recording again, to %s (after %d failed tries over %.0fs: %s)", self.name, path,
                     self._fault_tries, time.time() - (self.fault_since or time.time()), self.fault,
                     extra={"room": self.room})
            self.fault, self.fault_since = "", None
        if pkt.video and pkt.keyframe and pkt.time - self.base_time >= _STABLE_S:
            self._backoff.reset()

    @staticmethod
    def _still_there(path: Path, opened: os.stat_result) -> None:
        """Raises _Deleted when the file at `path` is no longer the one being written (writes to a deleted
        file succeed, into an inode nobody can open: the recording would be lost without an error)."""
        try:
            now = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            now = None
        if now is None or (now.st_dev, now.st_ino) != (opened.st_dev, opened.st_ino):
            raise _Deleted(errno.ENOENT, "the file was deleted while it was being recorded", str(path))

    def _record(self, container, vstream, astream) -> tuple[BaseException, str] | None:
        """Writes one file until rotation or closing; (error, what failed) when it could not."""
        path = self.files[-1]
        retry = bool(self.fault)
        failure: tuple[BaseException, str] | None = None
        opened: list[os.stat_result] = []  # the file as the first packet made it (the muxer opens it then)

        def write(pkt: EncodedPacket, pts: int, dts: int, c=container, v=vstream, a=astream) -> None:
            packet = av.Packet(pkt.data)
            packet.pts, packet.dts, packet.duration = pts, dts, pkt.duration
            packet.time_base = pkt.time_base
            packet.is_keyframe = pkt.keyframe
            packet.stream = v if pkt.video else a
            try:
                if opened and pkt.video and pkt.keyframe:  # a stat every GOP
                    self._still_there(path, opened[0])
                c.mux(packet)
                if not opened:
                    opened.append(os.stat(path))
            except (av.FFmpegError, OSError) as exc:
                raise _Disconnected(str(exc)) from exc
            self._took(pkt, path)

        try:
            self._mux_session(write, self._should_rotate)
        except _Disconnected as exc:
            cause = exc.__cause__ or exc
            failure = (cause, "recording file deleted" if isinstance(cause, _Deleted) else "write failed")
        try:
            container.close()
        except (av.FFmpegError, OSError) as exc:
            if failure is None:
                log.error("sink %s: closing %s: %s", self.name, path, exc)
        if failure is not None and not isinstance(failure[0], _Deleted) and (not self._file_packets or
                                                                            (retry and self.fault)):
            # Nothing of the stream is in it, or a retry that failed again within its first GOP: a try each
            # backoff must not leave a trail of empty or near-empty files.
            with contextlib.suppress(OSError):
                path.unlink()
            self.files.remove(path)
            self._segment -= 1
        return failure

    def _run(self) -> None:
        while self._packet_waiting():
            try:
                container, vstream, astream = self._open_container()
            except (av.FFmpegError, OSError) as exc:
                self._fail(exc, "cannot open recording")
                continue
            self._set_connected(True)
            with self._cond:
                self._need_key = True
            failure = self._record(container, vstream, astream)
            self._set_connected(False)
            if failure is not None:
                self._fail(*failure)


def build_sinks(room: str, outputs, encoder: Encoder) -> list[Sink]:
    sinks: list[Sink] = []
    for i, out in enumerate(outputs):
        if isinstance(out, RtmpOutput):
            sinks.append(RtmpSink(room, out, encoder, i))
        else:
            sinks.append(RecordSink(room, out, encoder, i))
    return sinks
