"""Bilibili live WebSocket framing: 16-byte big-endian headers, several packets per frame, zlib/brotli nesting.

Shared by the web client and the open platform. Inflating is capped (decompression bombs) and every malformed
piece is counted per kind instead of raised, so one bad frame never costs the connection. `decode_inline`
gives up (NeedsThread) once a frame inflates past a small budget, so the caller can finish it off the loop.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

import brotli

from danmaku.source import NeedsThread

ErrorSink = Callable[[str, str], None]

HEADER = struct.Struct(">IHHII")
HEADER_LEN = 16

OP_HEARTBEAT = 2
OP_HEARTBEAT_REPLY = 3
OP_SEND_MSG_REPLY = 5
OP_AUTH = 7
OP_AUTH_REPLY = 8

VER_PLAIN = 0
VER_HEARTBEAT = 1
VER_ZLIB = 2
VER_BROTLI = 3

# Largest output of one brotli step (see _inflate).
_BROTLI_STEP = 256 * 1024

# A compressed body holds plain packets; one more level is tolerated, anything deeper is refused.
_MAX_DEPTH = 2


def make_packet(op: int, body: bytes = b"", ver: int = VER_HEARTBEAT, seq: int = 1) -> bytes:
    return HEADER.pack(HEADER_LEN + len(body), HEADER_LEN, ver, op, seq) + body


class FrameResult:
    """What one WebSocket frame carried: business-message bodies (JSON bytes) and control replies."""

    __slots__ = ("auth_code_body", "commands", "popularity")

    def __init__(self) -> None:
        self.commands: list[bytes] = []
        self.popularity: int | None = None
        self.auth_code_body: bytes | None = None


class PacketDecoder:
    """Walks frames into a FrameResult; `error(kind, detail)` is called for each malformed piece."""

    def __init__(self, error: Callable[[str, str], None], max_inflated: int = 8 * 1024 * 1024):
        self._error = error
        self.max_inflated = max_inflated

    def decode(self, data: bytes) -> FrameResult:
        res = FrameResult()
        self._walk(data, res, 0, [self.max_inflated], self._error, False)
        return res

    def decode_inline(self, data: bytes, inline_limit: int) -> FrameResult:
        """As decode, but raises NeedsThread (reporting nothing) once the frame inflates past inline_limit."""
        res = FrameResult()
        errors: list[tuple[str, str]] = []
        budget = [min(inline_limit, self.max_inflated)]
        self._walk(data, res, 0, budget, lambda kind, detail: errors.append((kind, detail)), True)
        for kind, detail in errors:
            self._error(kind, detail)
        return res

    def decode_collecting(self, data: bytes) -> tuple[FrameResult, list[tuple[str, str]]]:
        """As decode, with the errors returned instead of reported: safe to run in a worker thread."""
        res = FrameResult()
        errors: list[tuple[str, str]] = []
        self._walk(data, res, 0, [self.max_inflated], lambda kind, detail: errors.append((kind, detail)), False)
        return res, errors

    def _walk(self, data: bytes, res: FrameResult, depth: int, budget: list[int], error: ErrorSink,
              inline: bool) -> None:
        off = 0
        n = len(data)
        unpack = HEADER.unpack_from
        commands = res.commands
        while off < n:
            if n - off < HEADER_LEN:
                error("truncated", f"{n - off} bytes left, less than a header")
                return
            pack_len, hdr_len, ver, op, _seq = unpack(data, off)
            if hdr_len < HEADER_LEN or pack_len < hdr_len:
                error("bad_length", f"pack_len={pack_len} header_len={hdr_len}")
                return
            end = off + pack_len
            if end > n:
                error("truncated", f"pack_len={pack_len} but {n - off} bytes left")
                return
            if op == OP_SEND_MSG_REPLY:
                if ver in (VER_PLAIN, VER_HEARTBEAT):
                    commands.append(data[off + hdr_len : end])
                elif ver in (VER_BROTLI, VER_ZLIB):
                    if depth >= _MAX_DEPTH:
                        error("nesting", "compressed packets nested too deeply")
                    else:
                        inner = self._inflate(data[off + hdr_len : end], ver, budget, error, inline)
                        if inner is not None:
                            self._walk(inner, res, depth + 1, budget, error, inline)
                else:
                    error("unknown_version", f"ver={ver}")
            elif op == OP_HEARTBEAT_REPLY:
                body = data[off + hdr_len : end]
                if len(body) < 4:
                    error("truncated", "heartbeat reply shorter than 4 bytes")
                else:
                    res.popularity = int.from_bytes(body[:4], "big")
                # Quirk: pack_len covers only the 4-byte popularity; what follows is the echo of our
                # heartbeat body, not a packet. Nothing else is ever packed after it.
                return
            elif op == OP_AUTH_REPLY:
                res.auth_code_body = data[off + hdr_len : end]
            # Other ops are not sent to clients; skip them quietly.
            off = end

    @staticmethod
    def _inflate(body: bytes, ver: int, budget: list[int], error: ErrorSink, inline: bool) -> bytes | None:
        limit = budget[0]
        try:
            if ver == VER_BROTLI:
                # In steps: brotli treats output_buffer_limit as a hint for one call (a bomb asked for 8 MB gave
                # 16), so the cap is enforced between bounded steps.
                d = brotli.Decompressor()
                step = min(limit + 1, _BROTLI_STEP)
                out = d.process(body, output_buffer_limit=step)
                n = len(out)
                parts = None
                while n <= limit and not d.is_finished() and not d.can_accept_more_data():
                    chunk = d.process(b"", output_buffer_limit=step)
                    if not chunk:
                        break
                    if parts is None:
                        parts = [out]
                    parts.append(chunk)
                    n += len(chunk)
                if n > limit:
                    if inline:
                        raise NeedsThread
                    error("too_large", f"inflated body over {limit} bytes")
                    return None
                if not d.is_finished():
                    error("bad_compression", "brotli stream ends early")
                    return None
                if parts is not None:
                    out = b"".join(parts)
            else:
                z = zlib.decompressobj()
                out = z.decompress(body, limit + 1)
                if len(out) > limit or z.unconsumed_tail:
                    if inline:
                        raise NeedsThread
                    error("too_large", f"inflated body over {limit} bytes")
                    return None
                if not z.eof:
                    error("bad_compression", "zlib stream ends early")
                    return None
        except (brotli.error, zlib.error) as exc:
            error("bad_compression", str(exc))
            return None
        budget[0] = limit - len(out)
        return out
