"""Source config: one model per type, errors naming the key, secrets redacted, blank env secrets unset."""

from __future__ import annotations

import pytest

from broadcaster.config import ConfigError, dump_redacted, parse_config


def _room(*sources: dict) -> dict:
    return {"rooms": [{"id": "r1", "sources": list(sources)}]}


def test_every_type_parses_with_defaults() -> None:
    cfg = parse_config(_room(
        {"type": "bilibili_web", "room_id": 5, "sessdata": "SECRETCOOKIE"},
        {"type": "bilibili_open", "code": "C", "app_id": 1, "access_key_id": "K", "access_key_secret": "S"},
        {"type": "douyin_web", "web_rid": "123", "signer": {"type": "command", "argv": ["sign", "{stub}"]}},
        {"type": "douyin_push", "push_secret": "P", "app_id": "tt1", "app_secret": "AS", "room_id": "77"},
        {"type": "webhook", "token": "T"},
        {"type": "redis_stream", "stream": "chat", "url": "redis://:pw@127.0.0.1:6379/0"},
        {"type": "replay", "path": "/dev/null", "speed": 0},
    ))
    s = cfg.rooms[0].sources
    assert [x.type for x in s] == ["bilibili_web", "bilibili_open", "douyin_web", "douyin_push", "webhook",
                                   "redis_stream", "replay"]
    assert s[0].heartbeat_s == 30 and s[0].auth_timeout_s == 5 and s[0].silent_after_s == 180
    assert s[1].project_heartbeat_s == 20 and s[2].heartbeat_s == 10
    text = dump_redacted(cfg)
    for secret in ("SECRETCOOKIE", "access_key_secret: S", "pw@", "push_secret: P", "token: T"):
        assert secret not in text


@pytest.mark.parametrize(
    ("source", "key", "words"),
    [
        ({"type": "bilibili_web", "room_id": 0}, "rooms[0].sources[0].room_id", "greater than 0"),
        ({"type": "bilibili_web", "room_id": 5, "api_base": "ftp://x"}, "rooms[0].sources[0].api_base", "http"),
        ({"type": "bilibili_web", "room_id": 5, "sesdata": "x"}, "rooms[0].sources[0].sesdata", "unknown key"),
        ({"type": "douyin_web", "web_rid": "abc", "signer": {"type": "none"}}, "rooms[0].sources[0].web_rid",
         "pattern"),
        ({"type": "douyin_web", "web_rid": "1", "signer": {"type": "none"}, "ws_urls": ["http://x"]},
         "rooms[0].sources[0].ws_urls", "ws://"),
        ({"type": "douyin_push", "push_secret": "p"}, "rooms[0].sources[0]", "start_tasks needs app_id"),
        ({"type": "tiktok"}, "rooms[0].sources[0]", "is not one of"),
        ({"type": "webhook"}, "rooms[0].sources[0].token", "missing"),
        ({"type": "replay", "path": "x", "reconnect_delay_s": 5, "reconnect_max_delay_s": 1},
         "rooms[0].sources[0]", "reconnect_max_delay_s"),
        ({"type": "bilibili_web", "room_id": 5, "ca_file": "/nonexistent/ca.pem"}, "rooms[0].sources[0].ca_file",
         "does not exist"),
    ],
)
def test_errors_name_the_key(source: dict, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as ei:
        parse_config(_room(source), "va.yaml")
    msg = str(ei.value)
    assert msg.startswith(f"va.yaml: {key}") and words in msg, msg


def test_blank_env_secret_means_not_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BILI_SESSDATA", raising=False)
    cfg = parse_config(_room({"type": "bilibili_web", "room_id": 5, "sessdata": "${BILI_SESSDATA:-}"}))
    assert cfg.rooms[0].sources[0].sessdata is None
