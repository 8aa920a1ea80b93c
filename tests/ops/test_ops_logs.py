"""JSON-lines logging for journald and the redaction of stream keys, tokens and cookies."""

from __future__ import annotations

import io
import json
import logging

import pytest

from broadcaster.config import parse_config
from broadcaster.logs import (
    clear_secrets,
    redact,
    redact_obj,
    register_secrets,
    secrets_of,
    setup_logging,
)

KEY = "live_4421337_xYzSecretKey99"


@pytest.fixture(autouse=True)
def _fresh_registry():
    clear_secrets()
    level = logging.getLogger().level
    yield
    clear_secrets()
    root = logging.getLogger()
    root.setLevel(level)
    for h in list(root.handlers):
        if h.get_name() == "virtual-anchor-stdout":
            root.removeHandler(h)


@pytest.mark.parametrize(
    "text",
    [
        f"connecting to rtmp://live-push.bilivideo.com/live-bvc/?streamname={KEY}&key=abc",
        f"connecting to rtmp://a.rtmp.youtube.com/live2/{KEY}",
        f"rtmps://u:{KEY}@ingest.example/app/x",
        f"GET /x?token={KEY}&room=1",
        f"cookie: SESSDATA={KEY}; bili_jct=deadbeef",
        f"Authorization: Bearer {KEY}",
        f'{{"stream_key": "{KEY}"}}',
    ],
)
def test_patterns_hide_keys_without_registration(text):
    assert KEY not in redact(text)


def test_media_url_keeps_host_and_app():
    assert redact(f"push rtmp://ingest.example:1935/live/{KEY} failed") == "push rtmp://ingest.example:1935/live/*** failed"


def test_registered_secret_hidden_anywhere():
    register_secrets(["s3cr3t-cookie-value"])
    assert redact("odd place: xs3cr3t-cookie-valuex") == "odd place: x***x"
    assert redact_obj({"a": ["s3cr3t-cookie-value"], "n": 1}) == {"a": ["***"], "n": 1}


def test_registering_a_url_also_hides_its_bare_key():
    register_secrets([f"rtmp://ingest.example/live/{KEY}"])
    assert redact(f"publish {KEY} refused") == "publish *** refused"


def test_ordinary_text_is_left_alone():
    text = "弹幕: 主播好! the monkey=3 key-frame every 2 s, tokens/s 40"
    assert redact(text) == text


def test_secrets_of_walks_the_config_tree(tmp_path):
    cfg = parse_config(
        {
            "daemon": {"admin": {"token": "admintoken123"}},
            "rooms": [{"id": "r1", "outputs": [{"type": "rtmp", "url": f"rtmp://ingest.example/live/{KEY}"}]}],
        }
    )
    found = secrets_of(cfg)
    assert "admintoken123" in found
    assert f"rtmp://ingest.example/live/{KEY}" in found


def test_json_lines_on_the_stream_with_extra_fields_and_redaction():
    buf = io.StringIO()
    setup_logging("debug", "json", stream=buf)
    register_secrets(["admintoken123"])
    log = logging.getLogger("virtual-anchor.test")
    log.info("sink %s up, token admintoken123", f"rtmp://h/live/{KEY}", extra={"room": "r1", "frames": 3})
    try:
        raise RuntimeError(f"connect rtmp://h/live/{KEY} refused")
    except RuntimeError:
        log.exception("sink failed")
    lines = buf.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["level"] == "info" and first["logger"] == "virtual-anchor.test"
    assert first["room"] == "r1" and first["frames"] == 3 and first["priority"] == 6
    assert first["msg"] == "sink rtmp://h/live/*** up, token ***"
    assert second["level"] == "error" and "RuntimeError" in second["exc"]
    assert KEY not in buf.getvalue() and "admintoken123" not in buf.getvalue()


def test_text_format_is_redacted_too():
    buf = io.StringIO()
    setup_logging("info", "text", stream=buf)
    logging.getLogger("x").warning("key=%s", KEY)
    assert KEY not in buf.getvalue() and "key=***" in buf.getvalue()
