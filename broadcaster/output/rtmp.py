"""A small RTMP publisher: handshake, chunking, the connect/createStream/publish dance, pings and acks.

Our own client, not FFmpeg's, because FFmpeg's publisher connects while holding Python's GIL and has no
timeout on connect or write: one ingest that stops answering would freeze every room in the process.
Here every socket call has a timeout and releases the GIL.
"""

from __future__ import annotations

import contextlib
import os
import socket
import ssl
import struct
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

from broadcaster.output import amf0

SET_CHUNK_SIZE, ABORT, ACK, USER_CONTROL, WINDOW_ACK_SIZE, SET_PEER_BW = 1, 2, 3, 4, 5, 6
AUDIO, VIDEO, DATA, COMMAND = 8, 9, 18, 20
CSID_CONTROL, CSID_COMMAND, CSID_AUDIO, CSID_VIDEO, CSID_STREAM = 2, 3, 4, 6, 8
OUT_CHUNK_SIZE = 4096  # what OBS and nginx-rtmp use
MAX_MESSAGE = 16 * 1024 * 1024


class RtmpError(Exception):
    """The connection failed or broke."""


class Unreachable(RtmpError):
    """Nothing accepted the TCP connection (refused, unreachable, timed out): the server is down."""


class PublishRejected(RtmpError):
    """The server answered and said no (bad app or key, auth): retrying at once would not help."""


@dataclass(frozen=True)
class Target:
    host: str
    port: int
    tls: bool
    app: str
    stream: str
    tc_url: str


def parse_url(url: str) -> Target:
    """rtmp[s]://host[:port]/app/stream?query — the app is the first path segment; the stream name is the
    rest, query included (Bilibili's name is `?streamname=…&key=…`, so it may start with '?')."""
    parts = urlsplit(url)
    if parts.scheme not in ("rtmp", "rtmps") or not parts.hostname:
        raise ValueError("expected rtmp://host[:port]/app/stream")
    path = parts.path.lstrip("/")
    app, _, stream = path.partition("/")
    if parts.query:
        stream += "?" + parts.query
    if not app:
        raise ValueError("the RTMP URL has no app")
    tls = parts.scheme == "rtmps"
    port = parts.port or (443 if tls else 1935)
    netloc = parts.hostname if parts.port is None else f"{parts.hostname}:{parts.port}"
    return Target(parts.hostname, port, tls, app, stream, f"{parts.scheme}://{netloc}/{app}")


class _ChunkReader:
    """Reassembles server messages from chunks; keeps the per-chunk-stream header state RTMP needs."""

    def __init__(self, recv):
        self._recv = recv
        self.chunk_size = 128
        self._state: dict[int, dict] = {}

    def read_message(self) -> tuple[int, int, int, bytes]:
        """(type, timestamp, message stream id, payload) of the next complete message."""
        while True:
            b0 = self._recv(1)[0]
            fmt, csid = b0 >> 6, b0 & 0x3F
            if csid == 0:
                csid = 64 + self._recv(1)[0]
            elif csid == 1:
                lo, hi = self._recv(2)
                csid = 64 + lo + 256 * hi
            st = self._state.setdefault(csid, {"ts": 0, "len": 0, "type": 0, "msid": 0, "buf": b"", "ext": False})
            if fmt == 0:
                h = self._recv(11)
                ts = int.from_bytes(h[0:3], "big")
                st["len"], st["type"] = int.from_bytes(h[3:6], "big"), h[6]
                st["msid"] = struct.unpack("<I", h[7:11])[0]
                st["ext"] = ts == 0xFFFFFF
                st["ts"] = struct.unpack(">I", self._recv(4))[0] if st["ext"] else ts
            elif fmt == 1:
                h = self._recv(7)
                delta = int.from_bytes(h[0:3], "big")
                st["len"], st["type"] = int.from_bytes(h[3:6], "big"), h[6]
                st["ext"] = delta == 0xFFFFFF
                st["ts"] += struct.unpack(">I", self._recv(4))[0] if st["ext"] else delta
            elif fmt == 2:
                delta = int.from_bytes(self._recv(3), "big")
                st["ext"] = delta == 0xFFFFFF
                st["ts"] += struct.unpack(">I", self._recv(4))[0] if st["ext"] else delta
            elif st["ext"]:
                self._recv(4)
            if st["len"] > MAX_MESSAGE:
                raise RtmpError(f"server message of {st['len']} bytes is implausible")
            take = min(self.chunk_size, st["len"] - len(st["buf"]))
            st["buf"] += self._recv(take)
            if len(st["buf"]) >= st["len"]:
                payload, st["buf"] = st["buf"], b""
                return st["type"], st["ts"], st["msid"], payload


class Publisher:
    """One publishing session. Not reusable: make a new one for each (re)connect."""

    def __init__(self, url: str, timeout_s: float = 5.0, *, ca_file: str | None = None):
        self.target = parse_url(url)
        self.timeout_s = timeout_s
        self._ca_file = ca_file
        self._sock: socket.socket | None = None
        self._send_lock = threading.Lock()
        self._reader: _ChunkReader | None = None
        self._received = 0
        self._acked = 0
        self._window = 2_500_000
        self._stream_id = 0
        self._txn = 0
        self.error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- socket -----------------------------------------------------------------------------------
    def _recv(self, n: int) -> bytes:
        assert self._sock is not None
        out = bytearray()
        while len(out) < n:
            try:
                chunk = self._sock.recv(n - len(out))
            except TimeoutError:
                if self._thread is not None and not self._closed:
                    continue  # publishing: the server may stay quiet for minutes
                raise

            if not chunk:
                raise RtmpError("the server closed the connection")
            out += chunk
        self._received += n
        return bytes(out)

    def _send(self, data: bytes) -> None:
        if self.error is not None:
            raise RtmpError(f"connection failed: {self.error}")
        assert self._sock is not None
        with self._send_lock:
            self._sock.sendall(data)

    def _message(self, csid: int, mtype: int, ts: int, msid: int, payload: bytes) -> bytes:
        ts &= 0xFFFFFFFF
        ext = ts >= 0xFFFFFF
        head = bytes([csid]) + (0xFFFFFF if ext else ts).to_bytes(3, "big") + len(payload).to_bytes(3, "big")
        head += bytes([mtype]) + struct.pack("<I", msid)
        ext_ts = struct.pack(">I", ts) if ext else b""
        parts = [head, ext_ts, payload[:OUT_CHUNK_SIZE]]
        cont = bytes([0xC0 | csid]) + ext_ts
        for off in range(OUT_CHUNK_SIZE, len(payload), OUT_CHUNK_SIZE):
            parts += [cont, payload[off : off + OUT_CHUNK_SIZE]]
        return b"".join(parts)

    # -- session ----------------------------------------------------------------------------------
    def connect(self) -> None:
        """Handshake, connect, createStream and publish; raises RtmpError/PublishRejected/OSError."""
        t = self.target
        try:
            sock = socket.create_connection((t.host, t.port), timeout=self.timeout_s)
        except OSError as exc:
            raise Unreachable(str(exc)) from exc
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if t.tls:
            ctx = ssl.create_default_context(cafile=self._ca_file)
            sock = ctx.wrap_socket(sock, server_hostname=t.host)
        sock.settimeout(self.timeout_s)
        self._sock = sock
        self._reader = _ChunkReader(self._recv)
        self._handshake()
        self._send(self._message(CSID_CONTROL, SET_CHUNK_SIZE, 0, 0, struct.pack(">I", OUT_CHUNK_SIZE)))
        self._command("connect", {
            "app": t.app, "type": "nonprivate", "flashVer": "FMLE/3.0 (compatible; FMSc/1.0)", "tcUrl": t.tc_url,
        })
        reply = self._wait_reply(1)
        if reply[0] != "_result":
            raise PublishRejected(f"connect refused: {_describe(reply)}")
        self._command("releaseStream", None, t.stream)
        self._command("FCPublish", None, t.stream)
        create_txn = self._command("createStream", None)
        reply = self._wait_reply(create_txn)
        if reply[0] != "_result" or len(reply) < 4 or not isinstance(reply[3], float):
            raise PublishRejected(f"createStream refused: {_describe(reply)}")
        self._stream_id = int(reply[3])
        self._command("publish", None, t.stream, "live", csid=CSID_STREAM, msid=self._stream_id)
        status = self._wait_status()
        code = status.get("code", "") if isinstance(status, dict) else ""
        if code != "NetStream.Publish.Start":
            raise PublishRejected(f"publish refused: {code or status}")
        self._thread = threading.Thread(target=self._read_loop, name="rtmp-reader", daemon=True)
        self._thread.start()

    def _handshake(self) -> None:
        c1 = b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00" + os.urandom(1528)
        self._send(b"\x03" + c1)
        s0 = self._recv(1)
        if s0[0] != 3:
            raise RtmpError(f"not an RTMP server (version byte {s0[0]})")
        s1 = self._recv(1536)
        self._recv(1536)  # S2: the echo of C1; servers differ in how exactly, so it is not checked
        self._send(s1)

    def _command(self, name: str, *args, csid: int = CSID_COMMAND, msid: int = 0) -> int:
        self._txn += 1
        payload = amf0.encode_all(name, float(self._txn), *args)
        self._send(self._message(csid, COMMAND, 0, msid, payload))
        return self._txn

    def _handle_control(self, mtype: int, payload: bytes) -> None:
        assert self._reader is not None
        if mtype == SET_CHUNK_SIZE and len(payload) >= 4:
            size = struct.unpack(">I", payload[:4])[0] & 0x7FFFFFFF
            if not 1 <= size <= MAX_MESSAGE:
                raise RtmpError(f"server chunk size {size} is implausible")
            self._reader.chunk_size = size
        elif mtype == WINDOW_ACK_SIZE and len(payload) >= 4:
            self._window = max(1, struct.unpack(">I", payload[:4])[0])
        elif mtype == USER_CONTROL and len(payload) >= 6 and struct.unpack(">H", payload[:2])[0] == 6:
            self._send(self._message(CSID_CONTROL, USER_CONTROL, 0, 0, b"\x00\x07" + payload[2:6]))
        if self._received - self._acked >= self._window:
            self._acked = self._received
            self._send(self._message(CSID_CONTROL, ACK, 0, 0, struct.pack(">I", self._received & 0xFFFFFFFF)))

    def _next_command(self) -> list:
        assert self._reader is not None
        while True:
            mtype, _, _, payload = self._reader.read_message()
            self._handle_control(mtype, payload)
            if mtype == COMMAND:
                try:
                    return amf0.decode_all(payload)
                except amf0.AMFError as exc:
                    raise RtmpError(f"undecodable command from the server: {exc}") from exc

    def _wait_reply(self, txn: int) -> list:
        while True:
            cmd = self._next_command()
            if len(cmd) >= 2 and cmd[0] in ("_result", "_error") and cmd[1] == txn:
                return cmd

    def _wait_status(self) -> dict:
        while True:
            cmd = self._next_command()
            if cmd and cmd[0] == "onStatus":
                return cmd[3] if len(cmd) > 3 and isinstance(cmd[3], dict) else {}
            if cmd and cmd[0] == "_error":
                return {"code": _describe(cmd)}

    def _read_loop(self) -> None:
        """After publish: answer pings, send acks, and notice a server that ends the session."""
        try:
            while not self._closed:
                cmd = self._next_command()
                if cmd and cmd[0] == "onStatus" and len(cmd) > 3 and isinstance(cmd[3], dict) \
                        and cmd[3].get("level") == "error":
                    raise RtmpError(f"server ended the stream: {cmd[3].get('code')}")
        except (OSError, RtmpError) as exc:
            if not self._closed:
                self.error = exc

    # -- media ------------------------------------------------------------------------------------
    def send(self, mtype: int, ts_ms: int, payload: bytes) -> None:
        csid = CSID_VIDEO if mtype == VIDEO else CSID_AUDIO
        self._send(self._message(csid, mtype, ts_ms, self._stream_id, payload))

    def close(self) -> None:
        """Ends the stream politely (FCUnpublish, deleteStream) when the socket still works, then closes."""
        if self._closed:
            return
        try:
            if self.error is None and self._stream_id:
                self._command("FCUnpublish", None, self.target.stream)
                self._command("deleteStream", None, float(self._stream_id))
        except OSError:
            pass
        finally:
            self._closed = True
            if self._sock is not None:
                with contextlib.suppress(OSError):
                    self._sock.shutdown(socket.SHUT_RDWR)
                self._sock.close()


def _describe(cmd: list) -> str:
    for item in cmd[2:]:
        if isinstance(item, dict) and ("code" in item or "description" in item):
            return f"{item.get('code', '')} {item.get('description', '')}".strip()
    return str(cmd[0]) if cmd else "no answer"
