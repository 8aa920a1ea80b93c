"""AMF0 encoding and decoding: the value format of RTMP commands and FLV script data."""

from __future__ import annotations

import struct
from typing import Any

NUMBER, BOOLEAN, STRING, OBJECT, NULL, UNDEFINED, ECMA_ARRAY, OBJECT_END, STRICT_ARRAY, DATE, LONG_STRING = (
    0x00, 0x01, 0x02, 0x03, 0x05, 0x06, 0x08, 0x09, 0x0A, 0x0B, 0x0C,
)


class AMFError(ValueError):
    pass


class ECMAArray(dict):
    """A dict that encodes as an AMF0 ECMA array (what onMetaData uses) rather than an object."""


def _key(name: str) -> bytes:
    raw = name.encode()
    return struct.pack(">H", len(raw)) + raw


def encode(value: Any) -> bytes:
    if value is None:
        return bytes([NULL])
    if isinstance(value, bool):
        return bytes([BOOLEAN, 1 if value else 0])
    if isinstance(value, int | float):
        return bytes([NUMBER]) + struct.pack(">d", float(value))
    if isinstance(value, str):
        raw = value.encode()
        if len(raw) > 0xFFFF:
            return bytes([LONG_STRING]) + struct.pack(">I", len(raw)) + raw
        return bytes([STRING]) + struct.pack(">H", len(raw)) + raw
    if isinstance(value, ECMAArray):
        body = b"".join(_key(k) + encode(v) for k, v in value.items())
        return bytes([ECMA_ARRAY]) + struct.pack(">I", len(value)) + body + b"\x00\x00" + bytes([OBJECT_END])
    if isinstance(value, dict):
        body = b"".join(_key(k) + encode(v) for k, v in value.items())
        return bytes([OBJECT]) + body + b"\x00\x00" + bytes([OBJECT_END])
    if isinstance(value, list | tuple):
        return bytes([STRICT_ARRAY]) + struct.pack(">I", len(value)) + b"".join(encode(v) for v in value)
    raise AMFError(f"cannot encode {type(value).__name__} as AMF0")


def encode_all(*values: Any) -> bytes:
    return b"".join(encode(v) for v in values)


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise AMFError("truncated AMF0 data")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def string(self, wide: bool = False) -> str:
        (n,) = struct.unpack(">I" if wide else ">H", self.take(4 if wide else 2))
        return self.take(n).decode("utf-8", "replace")

    def pairs(self, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while True:
            key = self.string()
            if not key and self.data[self.pos : self.pos + 1] == bytes([OBJECT_END]):
                self.pos += 1
                return out
            out[key] = self.value(depth + 1)

    def value(self, depth: int = 0) -> Any:
        if depth > 32:
            raise AMFError("AMF0 nesting too deep")
        marker = self.take(1)[0]
        if marker == NUMBER:
            return struct.unpack(">d", self.take(8))[0]
        if marker == BOOLEAN:
            return self.take(1)[0] != 0
        if marker == STRING:
            return self.string()
        if marker == LONG_STRING:
            return self.string(wide=True)
        if marker == OBJECT:
            return self.pairs(depth)
        if marker == ECMA_ARRAY:
            self.take(4)
            return ECMAArray(self.pairs(depth))
        if marker == STRICT_ARRAY:
            (n,) = struct.unpack(">I", self.take(4))
            if n > len(self.data):
                raise AMFError("AMF0 array longer than its message")
            return [self.value(depth + 1) for _ in range(n)]
        if marker in (NULL, UNDEFINED):
            return None
        if marker == DATE:
            (ms,) = struct.unpack(">d", self.take(8))
            self.take(2)
            return ms
        raise AMFError(f"unsupported AMF0 marker 0x{marker:02x}")


def decode_all(data: bytes) -> list[Any]:
    reader = _Reader(data)
    values = []
    while reader.pos < len(data):
        values.append(reader.value())
    return values
