"""WBI request signing for Bilibili web APIs (getDanmuInfo needs it since 2025-05)."""

from __future__ import annotations

import hashlib
import time
import urllib.parse
from collections.abc import Mapping

MIXIN_TABLE = (
    46, 47, 18, 2, 53, 8, 23, 32, 15, 50, 10, 31, 58, 3, 45, 35,
    27, 43, 5, 49, 33, 9, 42, 19, 29, 28, 14, 39, 12, 38, 41, 13,
)
_STRIP = str.maketrans("", "", "!'()*")


def key_from_url(url: str) -> str:
    """`https://i0.hdslb.com/bfs/wbi/7cd0….png` → `7cd0…` (file name without extension)."""
    name = url.rsplit("/", 1)[-1]
    return name.split(".", 1)[0]


def mixin_key(img_key: str, sub_key: str) -> str:
    raw = img_key + sub_key
    if len(raw) < 64:
        raise ValueError("WBI keys must be 32 characters each")
    return "".join(raw[i] for i in MIXIN_TABLE)


def sign(params: Mapping[str, object], img_key: str, sub_key: str, wts: int | None = None) -> dict[str, str]:
    """Returns the params with `wts` and `w_rid` added (values stripped of !'()* as the server does)."""
    key = mixin_key(img_key, sub_key)
    signed = {str(k): str(v).translate(_STRIP) for k, v in params.items()}
    signed["wts"] = str(int(time.time()) if wts is None else wts)
    query = urllib.parse.urlencode(sorted(signed.items()))
    signed["w_rid"] = hashlib.md5((query + key).encode()).hexdigest()
    return signed
