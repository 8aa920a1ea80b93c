"""A small protobuf wire-format codec: decode any message to {field: [values]}, encode from (field, value) pairs.

Enough for the handful of platform messages we read (Douyin PushFrame/Response/…, Bilibili SEND_GIFT_V2 and
INTERACT_WORD_V2) without generated code or a schema compiler. Malformed input raises DecodeError("protobuf").
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Union

from danmaku.source import DecodeError

Value = int | bytes
Fields = dict[int, list[Value]]

_MAX_DEPTH = 32


def _varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise DecodeError("protobuf", "truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise DecodeError("protobuf", "varint too long")


def decode(buf: bytes) -> Fields:
    """Parses one message level. Length-delimited values stay bytes (decode nested messages on demand)."""
    fields: Fields = {}
    pos, end = 0, len(buf)
    while pos < end:
        key = buf[pos]
        if key < 0x80:  # one-byte keys and values are the common case: skip the general varint loop
            pos += 1
        else:
            key, pos = _varint(buf, pos, end)
        num, wt = key >> 3, key & 7
        if num == 0:
            raise DecodeError("protobuf", "field number 0")
        if wt == 0:
            if pos < end and buf[pos] < 0x80:
                val = buf[pos]
                pos += 1
            else:
                val, pos = _varint(buf, pos, end)
        elif wt == 2:
            if pos < end and buf[pos] < 0x80:
                ln = buf[pos]
                pos += 1
            else:
                ln, pos = _varint(buf, pos, end)
            if ln > end - pos:
                raise DecodeError("protobuf", "length past the end")
            val = buf[pos : pos + ln]
            pos += ln
        elif wt == 1:
            if end - pos < 8:
                raise DecodeError("protobuf", "truncated fixed64")
            val = struct.unpack_from("<Q", buf, pos)[0]
            pos += 8
        elif wt == 5:
            if end - pos < 4:
                raise DecodeError("protobuf", "truncated fixed32")
            val = struct.unpack_from("<I", buf, pos)[0]
            pos += 4
        else:
            # Groups (3/4) are long deprecated and 6/7 do not exist: treat as garbage.
            raise DecodeError("protobuf", f"wire type {wt}")
        if num in fields:
            fields[num].append(val)
        else:
            fields[num] = [val]
    return fields


# ---------------------------------------------------------------- typed getters (last value wins, as in proto3)


def get_int(f: Fields, num: int, default: int = 0) -> int:
    v = f.get(num)
    if not v:
        return default
    x = v[-1]
    if not isinstance(x, int):
        raise DecodeError("protobuf", f"field {num} is not an integer")
    return x


def get_sint(f: Fields, num: int, default: int = 0) -> int:
    """A signed int64/int32 sent as a two's complement varint."""
    x = get_int(f, num, default)
    return x - (1 << 64) if x >= 1 << 63 else x


def get_bool(f: Fields, num: int) -> bool:
    return bool(get_int(f, num, 0))


def get_bytes(f: Fields, num: int) -> bytes:
    v = f.get(num)
    if not v:
        return b""
    x = v[-1]
    if not isinstance(x, bytes):
        raise DecodeError("protobuf", f"field {num} is not length-delimited")
    return x


def get_str(f: Fields, num: int) -> str:
    raw = get_bytes(f, num)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError("utf8", f"field {num}") from exc


def get_msg(f: Fields, num: int) -> Fields:
    return decode(get_bytes(f, num))


def get_msgs(f: Fields, num: int) -> list[Fields]:
    out = []
    for x in f.get(num, ()):
        if not isinstance(x, bytes):
            raise DecodeError("protobuf", f"field {num} is not length-delimited")
        out.append(decode(x))
    return out


def get_strs(f: Fields, num: int) -> list[str]:
    out = []
    for x in f.get(num, ()):
        if not isinstance(x, bytes):
            raise DecodeError("protobuf", f"field {num} is not length-delimited")
        try:
            out.append(x.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise DecodeError("utf8", f"field {num}") from exc
    return out


# ---------------------------------------------------------------- encoding (requests we send, and test fakes)

Encodable = Union[int, bool, str, bytes, "list[tuple[int, Encodable]]"]


def _put_varint(out: bytearray, v: int) -> None:
    if v < 0:
        v += 1 << 64
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def encode(fields: Iterable[tuple[int, Encodable]], _depth: int = 0) -> bytes:
    """Encodes (field number, value) pairs: int/bool as varint, str/bytes as length-delimited,
    a list of pairs as a nested message. Repeat a field number for repeated fields."""
    if _depth > _MAX_DEPTH:
        raise ValueError("message nested too deeply")
    out = bytearray()
    for num, val in fields:
        if isinstance(val, (bool, int)):
            _put_varint(out, num << 3)
            _put_varint(out, int(val))
            continue
        if isinstance(val, str):
            data = val.encode("utf-8")
        elif isinstance(val, (bytes, bytearray)):
            data = bytes(val)
        elif isinstance(val, list):
            data = encode(val, _depth + 1)
        else:
            raise TypeError(f"cannot encode {type(val).__name__}")
        _put_varint(out, (num << 3) | 2)
        _put_varint(out, len(data))
        out += data
    return bytes(out)
