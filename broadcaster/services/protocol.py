"""Wire format between a room and a service: small JSON headers on a unix socket, bulk arrays in shared memory.

Each connection maps two memfd arenas, one per direction, handed over once at the handshake with
SCM_RIGHTS (no names in /dev/shm, so nothing leaks when either side is killed -9: the kernel frees
an arena when its last mapping goes). After that every message is a 4-byte big-endian length and
a JSON object; an array travels as a descriptor {"o": offset, "s": shape, "d": dtype} into the
sender's arena, never as bytes on the socket. The sender allocates, the receiver copies (or reads
in place) and the allocation is freed when the peer says so: the client frees its request inputs
when the final answer arrives, the service frees a result's outputs on the client's "free".

Messages (client → service): req {id, params, inputs, timeout_ms, items}, cancel {id}, free {o: [offsets]},
stats {id}. Service → client: res {id, ok, final, out, meta, error, batch, wait_ms}, stats {id, …}.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import mmap
import os
import socket
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

_LEN = struct.Struct(">I")
MAX_HEADER = 16 << 20  # a header is small; anything bigger is a broken peer
_ALIGN = 64


class ProtocolError(Exception):
    """The peer sent something that is not this protocol."""


def _jsonable(o: Any) -> Any:
    # A service's meta may hold numpy scalars or paths; anything else unknown is sent as its str.
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray) and o.size <= 64:
        return o.tolist()
    return str(o)


def encode(msg: dict[str, Any]) -> bytes:
    body = json.dumps(msg, separators=(",", ":"), default=_jsonable).encode()
    return _LEN.pack(len(body)) + body


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any]:
    """One header; raises asyncio.IncompleteReadError at EOF."""
    (n,) = _LEN.unpack(await reader.readexactly(4))
    if n > MAX_HEADER:
        raise ProtocolError(f"header of {n} bytes")
    msg = json.loads(await reader.readexactly(n))
    if not isinstance(msg, dict):
        raise ProtocolError("header is not an object")
    msg["_size"] = 4 + n  # what this header cost on the socket (counted by clients)
    return msg


class ArenaFull(Exception):
    """No room left in a shared-memory arena for an array of this size (now, or ever when `never`)."""

    def __init__(self, message: str, *, never: bool = False) -> None:
        super().__init__(message)
        self.never = never


class Arena:
    """A memfd mapped shared between two processes, with a first-fit allocator used only by its owner.

    The owner (writer) allocates and writes; the peer maps the same fd and reads at the offsets it is
    told. Freed blocks coalesce, so long-running connections do not fragment into uselessness.
    """

    def __init__(self, size: int, fd: int | None = None, *, name: str = "va-service") -> None:
        self.owner = fd is None
        if fd is None:
            fd = os.memfd_create(name, os.MFD_CLOEXEC)
            os.ftruncate(fd, size)
        else:
            size = os.fstat(fd).st_size
        self.fd = fd
        self.size = size
        self._mm = mmap.mmap(fd, size)
        self.view = np.frombuffer(self._mm, np.uint8)
        self._free: list[tuple[int, int]] = [(0, size)]  # sorted (offset, size)
        self._used: dict[int, int] = {}
        self.changed = asyncio.Event() if self.owner else None  # set on every free (writers waiting for space)

    @property
    def used_bytes(self) -> int:
        return sum(self._used.values())

    def alloc(self, nbytes: int) -> int:
        need = max(_ALIGN, -(-nbytes // _ALIGN) * _ALIGN)
        if need > self.size:
            raise ArenaFull(f"{nbytes} bytes never fit a shared arena of {self.size >> 20} MiB "
                            "(raise daemon.services.arena_mb)", never=True)
        for i, (off, size) in enumerate(self._free):
            if size >= need:
                if size == need:
                    del self._free[i]
                else:
                    self._free[i] = (off + need, size - need)
                self._used[off] = need
                return off
        raise ArenaFull(f"shared arena full ({self.used_bytes >> 10} KiB of {self.size >> 10} KiB in use)")

    def free(self, off: int) -> None:
        size = self._used.pop(off, None)
        if size is None:
            return  # freed twice or never ours: harmless, the peer is allowed to be sloppy
        blocks = self._free
        lo, hi = 0, len(blocks)
        while lo < hi:
            mid = (lo + hi) // 2
            if blocks[mid][0] < off:
                lo = mid + 1
            else:
                hi = mid
        blocks.insert(lo, (off, size))
        # Coalesce with the next and the previous block.
        if lo + 1 < len(blocks) and off + size == blocks[lo + 1][0]:
            blocks[lo] = (off, size + blocks[lo + 1][1])
            del blocks[lo + 1]
        if lo > 0 and blocks[lo - 1][0] + blocks[lo - 1][1] == blocks[lo][0]:
            blocks[lo - 1] = (blocks[lo - 1][0], blocks[lo - 1][1] + blocks[lo][1])
            del blocks[lo]
        if self.changed is not None:
            self.changed.set()

    def put(self, arr: np.ndarray) -> dict[str, Any]:
        """Copies `arr` into a fresh block; returns its descriptor."""
        arr = np.ascontiguousarray(arr)
        if arr.dtype.hasobject:
            raise TypeError("arrays of Python objects cannot cross processes (use numeric dtypes)")
        off = self.alloc(arr.nbytes)
        if arr.nbytes:
            self.view[off:off + arr.nbytes] = arr.reshape(-1).view(np.uint8)
        return {"o": off, "s": list(arr.shape), "d": arr.dtype.str}

    def put_all(self, arrays: list[np.ndarray]) -> list[dict[str, Any]]:
        """All or nothing: on ArenaFull the blocks taken so far are given back."""
        descs: list[dict[str, Any]] = []
        try:
            for a in arrays:
                descs.append(self.put(a))
        except ArenaFull:
            for d in descs:
                self.free(d["o"])
            raise
        return descs

    def get(self, desc: dict[str, Any], *, copy: bool = True) -> np.ndarray:
        """The array a descriptor names; `copy=False` reads in place (valid until the owner frees it)."""
        try:
            dtype = np.dtype(desc["d"])
            shape = tuple(int(x) for x in desc["s"])
            off = int(desc["o"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ProtocolError(f"bad array descriptor {desc!r}") from exc
        nbytes = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
        if off < 0 or off + nbytes > self.size:
            raise ProtocolError(f"array descriptor {desc!r} points outside the arena")
        arr = self.view[off:off + nbytes].view(dtype).reshape(shape)
        return arr.copy() if copy else arr

    def close(self) -> None:
        self.view = np.zeros(0, np.uint8)
        with contextlib.suppress(BufferError, ValueError):
            self._mm.close()  # BufferError: a reader still holds a view; the mapping goes with it
        with contextlib.suppress(OSError):
            os.close(self.fd)


# --- handshake (blocking; run in a thread): hello + arena fd each way --------------------------------------


@dataclass
class Handshake:
    sock: socket.socket
    peer: dict[str, Any]  # the peer's hello
    peer_arena: Arena  # mapped from the peer's fd (we read it)


def _send_hello(sock: socket.socket, msg: dict[str, Any], fd: int) -> None:
    socket.send_fds(sock, [encode(msg)], [fd])


def _recv_hello(sock: socket.socket) -> tuple[dict[str, Any], int]:
    data, fds, _flags, _addr = socket.recv_fds(sock, 65536, 1)
    if not data:
        raise ConnectionError("peer closed during the handshake")
    if len(fds) != 1:
        for fd in fds:
            os.close(fd)
        raise ProtocolError("handshake without exactly one arena fd")
    while len(data) < 4 or len(data) < 4 + _LEN.unpack(data[:4])[0]:
        more = sock.recv(65536)
        if not more:
            os.close(fds[0])
            raise ConnectionError("peer closed during the handshake")
        data += more
    (n,) = _LEN.unpack(data[:4])
    if len(data) != 4 + n:
        os.close(fds[0])
        raise ProtocolError("data after the handshake")
    return json.loads(data[4:4 + n]), fds[0]


def client_handshake(path: str, hello: dict[str, Any], arena: Arena, timeout_s: float) -> Handshake:
    """Connects, sends our hello and arena, receives the service's welcome and arena."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout_s)
        sock.connect(path)
        _send_hello(sock, hello, arena.fd)
        peer, fd = _recv_hello(sock)
        sock.setblocking(False)
        return Handshake(sock, peer, Arena(0, fd))
    except BaseException:
        sock.close()
        raise


def server_handshake(sock: socket.socket, make_welcome: Any, timeout_s: float) -> tuple[Handshake, Arena]:
    """Receives a client's hello and arena, answers with `make_welcome(hello) -> (welcome, our arena)`."""
    sock.settimeout(timeout_s)
    peer, fd = _recv_hello(sock)
    peer_arena = Arena(0, fd)
    try:
        welcome, arena = make_welcome(peer)
        _send_hello(sock, welcome, arena.fd)
    except BaseException:
        peer_arena.close()
        raise
    sock.setblocking(False)
    return Handshake(sock, peer, peer_arena), arena
