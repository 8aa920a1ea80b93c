"""Structured logs: JSON lines on stdout for journald, and a redactor that hides stream keys, tokens and cookies."""

from __future__ import annotations

import datetime as _dt
import json
import logging
import re
import sys
import threading
from collections.abc import Iterable
from typing import Any, TextIO

from pydantic import BaseModel, SecretStr

from common.config import REDACTED, redact_url

# Media URLs carry the stream key in the path: keep scheme, host and app only.
_MEDIA_URL = re.compile(r"\b(?:rtmps?|rtmpt|rtsp|srt|rist)://[^\s\"'<>]+", re.I)
# Userinfo in any URL (user:password@host).
_USERINFO = re.compile(r"\b([a-z][a-z0-9+.-]*://)[^\s/@\"']+@", re.I)
# key=value / "key": "value" / key: value where the key names a secret.
_SECRET_KEYS = (
    r"(?:stream[_-]?key|streamkey|key|token|access[_-]?token|refresh[_-]?token|secret|client[_-]?secret|"
    r"password|passwd|pwd|sessdata|bili_jct|cookie|auth|authorization|sign|signature|w_rid|api[_-]?key|"
    r"x-api-key|access[_-]?key(?:[_-]?secret)?|app[_-]?key|app[_-]?secret)"
)
_KV = re.compile(
    r"(?P<k>\b" + _SECRET_KEYS + r")(?P<sep>\"?\s*[:=]\s*\"?)(?P<v>[^\s\"'&,;}]+)", re.I
)
# An Authorization value; credentials are long, so prose like "the token was refused" stays readable.
_BEARER = re.compile(r"\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}", re.I)

_registry_lock = threading.Lock()
_secrets: set[str] = set()
_MIN_SECRET = 4  # shorter values would redact ordinary words


def register_secrets(values: Iterable[str]) -> None:
    """Remembers exact secret values (stream keys, tokens, cookies) so they are hidden wherever they appear."""
    with _registry_lock:
        for v in values:
            if v and len(v) >= _MIN_SECRET:
                _secrets.add(v)
                # the key part of a secret URL on its own (what an error message may quote)
                if "://" in v:
                    tail = v.split("://", 1)[1].split("/", 2)
                    if len(tail) == 3 and len(tail[2]) >= _MIN_SECRET:
                        _secrets.add(tail[2])


def clear_secrets() -> None:
    with _registry_lock:
        _secrets.clear()


def secrets_of(obj: Any) -> list[str]:
    """Every SecretStr value inside a (config) model tree."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, SecretStr):
            found.append(node.get_secret_value())
        elif isinstance(node, BaseModel):
            for name in type(node).model_fields:
                walk(getattr(node, name))
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, list | tuple | set | frozenset):
            for v in node:
                walk(v)

    walk(obj)
    return found


def redact(text: str) -> str:
    """Hides anything that looks like a credential: registered secrets, media URL keys, key=value, bearer."""
    if not text:
        return text
    with _registry_lock:
        known = sorted(_secrets, key=len, reverse=True)
    for s in known:  # longest first, so a URL goes before the key inside it
        if s in text:
            text = text.replace(s, REDACTED)
    text = _MEDIA_URL.sub(lambda m: redact_url(m.group(0)), text)
    text = _USERINFO.sub(lambda m: m.group(1) + REDACTED + "@", text)
    text = _BEARER.sub(lambda m: m.group(1) + " " + REDACTED, text)
    text = _KV.sub(lambda m: m.group("k") + m.group("sep") + REDACTED, text)
    return text


def redact_obj(obj: Any) -> Any:
    """redact() applied to every string (keys included) of a JSON-like value."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {redact(str(k)) if isinstance(k, str) else k: redact_obj(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [redact_obj(v) for v in obj]
    return obj


_RESERVED = frozenset(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, extra fields, exception. Everything redacted."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": _dt.datetime.fromtimestamp(record.created, _dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _RESERVED and not key.startswith("_"):
                entry[key] = value if isinstance(value, str | int | float | bool | type(None)) else repr(value)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = record.stack_info
        # journald keys PRIORITY off syslog levels; keep a numeric field for filters too.
        entry["priority"] = _syslog_priority(record.levelno)
        return json.dumps(redact_obj(entry), ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """Plain text for a terminal, redacted like the JSON form."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def _syslog_priority(levelno: int) -> int:
    if levelno >= logging.CRITICAL:
        return 2
    if levelno >= logging.ERROR:
        return 3
    if levelno >= logging.WARNING:
        return 4
    if levelno >= logging.INFO:
        return 6
    return 7


class RedactFilter(logging.Filter):
    """For handlers this module does not format (e.g. a library's): rewrites the record's message redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage()
        clean = redact(msg)
        if clean != msg or record.args:
            record.msg, record.args = clean, None
        return True


_HANDLER_NAME = "virtual-anchor-stdout"


def setup_logging(level: str = "info", fmt: str = "json", stream: TextIO | None = None) -> logging.Handler:
    """Points the root logger at stdout (journald captures it) in JSON lines or text; idempotent."""
    root = logging.getLogger()
    for h in list(root.handlers):
        if h.get_name() == _HANDLER_NAME:
            root.removeHandler(h)
    handler = logging.StreamHandler(stream if stream is not None else sys.stdout)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    handler.addFilter(RedactFilter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    # aiohttp's access log is ours to shape (see admin); keep its noisy internals at warning.
    logging.getLogger("aiohttp.server").setLevel(logging.WARNING)
    return handler
