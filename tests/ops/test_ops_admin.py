"""The admin API on a real daemon: bearer token on every protected route, size limits, no leaked stream key."""

from __future__ import annotations

import http.client
import io
import json
import logging
import os
import stat

import cv2
import numpy as np
import pytest
import yaml
from ops_support import (
    ADMIN_TOKEN,
    STREAM_KEY,
    DaemonThread,
    request,
    small_room,
    wait_for,
    write_config,
)

from broadcaster import admin_client
from broadcaster.admin import MAX_BODY_BYTES, PROTECTED_ROUTES
from broadcaster.logs import clear_secrets, setup_logging
from tests.support.servers import free_port

SEEN: list[bytes] = []  # every response body of this module, checked for the stream key at the end


def call(method: str, path: str, live: DaemonThread, **kw) -> tuple[int, dict[str, str], bytes]:
    status, headers, body = request(method, live.url + path, **kw)
    SEEN.append(body)
    return status, headers, body


@pytest.fixture(scope="module")
def logbuf():
    buf = io.StringIO()
    level = logging.getLogger().level
    handler = setup_logging("debug", "json", stream=buf)
    yield buf
    logging.getLogger().removeHandler(handler)
    logging.getLogger().setLevel(level)
    clear_secrets()


@pytest.fixture(scope="module")
def live(tmp_path_factory, logbuf):
    tmp = tmp_path_factory.mktemp("admin")
    dead = f"rtmp://127.0.0.1:{free_port()}/live/{STREAM_KEY}"  # nobody listens: the sink retries and logs
    cfg = write_config(tmp / "config.yaml", rooms=[small_room("r1", [
        {"type": "record", "path": str(tmp / "r1.flv")},
        {"type": "rtmp", "url": dead, "name": "ingest", "reconnect_delay_s": 0.2},
    ])])
    # This module makes dozens of wrong-token calls on purpose; the lockout has its own test below.
    _admin_settings(cfg, failed_tokens=10000)
    d = DaemonThread(cfg).start()
    try:
        assert wait_for(lambda: d.room("r1").status()["frames"] > 10, 30)
        yield d
    finally:
        d.stop()


def _admin_settings(cfg, **settings) -> None:
    data = yaml.safe_load(cfg.read_text())
    data["daemon"]["admin"].update(settings)
    cfg.write_text(yaml.safe_dump(data))


def _path(template: str) -> str:
    return template.replace("{room}", "r1")


def test_health_and_readiness_need_no_token(live):
    status, _, body = call("GET", "/healthz", live)
    assert status == 200 and json.loads(body) == {"status": "ok"}
    assert wait_for(lambda: call("GET", "/readyz", live)[0] == 200, 15)
    assert json.loads(call("GET", "/readyz", live)[2])["ready"] is True


@pytest.mark.parametrize(("method", "template"), PROTECTED_ROUTES)
@pytest.mark.parametrize(
    "auth",
    [None, "Bearer nope", f"Bearer {ADMIN_TOKEN}x", f"Bearer {ADMIN_TOKEN[:-1]}", f"Basic {ADMIN_TOKEN}", ADMIN_TOKEN],
    ids=["none", "wrong", "longer", "shorter", "basic", "no-scheme"],
)
def test_protected_routes_refuse_missing_or_wrong_token(live, method, template, auth):
    headers = {"Authorization": auth} if auth else {}
    body = b'{"text": "hi"}' if method == "POST" else None
    status, h, raw = call(method, _path(template), live, headers=headers, body=body)
    assert status == 401, raw
    assert h["www-authenticate"].startswith("Bearer")
    assert json.loads(raw) == {"error": "missing or wrong bearer token"}


def test_unknown_paths_do_not_reveal_themselves_without_a_token(live):
    assert call("GET", "/api/secret-things", live)[0] == 401
    assert call("GET", "/api/secret-things", live, token=ADMIN_TOKEN)[0] == 404


def test_the_right_token_opens_every_route(live):
    for method, template in PROTECTED_ROUTES:
        if template.endswith(("/say", "/skip")):
            continue  # covered with their effects below
        status, _, raw = call(method, _path(template), live, token=ADMIN_TOKEN,
                              body=b"{}" if method == "POST" else None)
        assert status == 200, (template, raw)
    call("POST", "/api/rooms/r1/resume", live, token=ADMIN_TOKEN, body=b"{}")


def test_rooms_listing_and_detail(live):
    status, _, raw = call("GET", "/api/rooms", live, token=ADMIN_TOKEN)
    rooms = json.loads(raw)["rooms"]
    assert status == 200 and [r["id"] for r in rooms] == ["r1"]
    r1 = rooms[0]
    assert r1["on_air"] is True and r1["frames"] > 0 and r1["clock_age_s"] < 1
    assert {s["name"] for s in r1["sinks"]} >= {"ingest"}
    detail = json.loads(call("GET", "/api/rooms/r1", live, token=ADMIN_TOKEN)[2])
    assert detail["id"] == "r1" and isinstance(detail["chat"], list)
    assert call("GET", "/api/rooms/nope", live, token=ADMIN_TOKEN)[0] == 404


def test_pause_and_resume_show_in_status(live):
    assert call("POST", "/api/rooms/r1/pause", live, token=ADMIN_TOKEN)[0] == 200
    assert wait_for(lambda: live.room("r1").status()["paused"] is True, 5)  # the worker's next heartbeat
    assert json.loads(call("GET", "/api/rooms/r1", live, token=ADMIN_TOKEN)[2])["paused"] is True
    assert call("POST", "/api/rooms/r1/resume", live, token=ADMIN_TOKEN)[0] == 200
    assert wait_for(lambda: live.room("r1").status()["paused"] is False, 5)
    status, _, raw = call("POST", "/api/rooms/r1/skip", live, token=ADMIN_TOKEN)
    assert status == 200 and json.loads(raw)["action"] == "skip"


def test_snapshot_is_a_current_jpeg_of_the_stage(live):
    status, headers, jpeg = call("GET", "/api/rooms/r1/snapshot.jpg", live, token=ADMIN_TOKEN)
    assert status == 200 and headers["content-type"] == "image/jpeg" and headers["cache-control"] == "no-store"
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape == (180, 320, 3)


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (b"", "application/json", 400),
        (b"not json", "application/json", 400),
        (b'["a list"]', "application/json", 400),
        (b'{"text": "   "}', "application/json", 400),
        (b'{"text": 42}', "application/json", 400),
        (json.dumps({"text": "长" * 501}).encode(), "application/json", 400),
        (b"[" * 5000 + b"]" * 5000, "application/json", 400),  # too deep for json (was a 500)
        (b'{"text": ' + b"[" * 3000 + b"]" * 3000 + b"}", "application/json", 400),
        (b'{"text": ' + b"9" * 5000 + b"}", "application/json", 400),  # past Python's int digit limit
        (b'{"text": "\xff\xfe"}', "application/json", 400),  # not UTF-8
        (rb'{"text": "\ud800"}', "application/json", 400),  # a lone surrogate is no text either
    ],
)
def test_say_validates_its_body(live, body, content_type, expected):
    status, _, raw = call("POST", "/api/rooms/r1/say", live, token=ADMIN_TOKEN, body=body,
                          headers={"Content-Type": content_type})
    assert status == expected and "error" in json.loads(raw)


def test_oversized_bodies_are_refused(live):
    big = json.dumps({"text": "x" * (MAX_BODY_BYTES + 10)}).encode()
    status, _, raw = call("POST", "/api/rooms/r1/say", live, token=ADMIN_TOKEN, body=big)
    assert status == 413 and "error" in json.loads(raw)
    # no token: refused as unauthorized before anything is read
    assert call("POST", "/api/rooms/r1/say", live, body=big)[0] == 401


def test_oversized_chunked_body_without_length_is_refused(live):
    host, port = live.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    chunk = b"x" * 8192

    def chunks():
        yield b'{"text": "'
        for _ in range(MAX_BODY_BYTES // len(chunk) + 4):
            yield chunk
        yield b'"}'

    conn.request("POST", "/api/rooms/r1/say", body=chunks(), encode_chunked=True,
                 headers={"Authorization": f"Bearer {ADMIN_TOKEN}", "Transfer-Encoding": "chunked"})
    resp = conn.getresponse()
    raw = resp.read()
    SEEN.append(raw)
    assert resp.status == 413
    conn.close()


def test_console_page_is_served_with_a_strict_policy(live):
    status, headers, raw = call("GET", "/", live)
    assert status == 200 and headers["content-type"].startswith("text/html")
    csp = headers["content-security-policy"]
    assert "script-src 'sha256-" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
    assert headers["x-content-type-options"] == "nosniff"
    assert b'id="preview"' in raw


def test_metrics_public_by_default(live):
    status, headers, raw = call("GET", "/metrics", live)
    assert status == 200 and headers["content-type"].startswith("text/plain")
    assert b'va_frames_total{room="r1"}' in raw


def test_reload_adds_and_removes_rooms(live, tmp_path):
    original = live.config_path.read_text()
    rooms = [small_room("r1", []), small_room("r2", [])]
    # r1 keeps its outputs (unchanged); r2 is new
    import yaml

    data = yaml.safe_load(original)
    data["rooms"].append(rooms[1])
    live.config_path.write_text(yaml.safe_dump(data))
    try:
        status, _, raw = call("POST", "/api/reload", live, token=ADMIN_TOKEN, timeout=60)  # r2 starts its worker
        assert status == 200 and json.loads(raw) == {"added": ["r2"], "removed": [], "changed": [], "live": [],
                                                     "unchanged": ["r1"], "failed": {}, "ok": True}
        ids = [r["id"] for r in json.loads(call("GET", "/api/rooms", live, token=ADMIN_TOKEN)[2])["rooms"]]
        assert sorted(ids) == ["r1", "r2"]
        live.config_path.write_text("rooms: [oops")
        status, _, raw = call("POST", "/api/reload", live, token=ADMIN_TOKEN)
        assert status == 400 and "invalid YAML" in json.loads(raw)["error"]
    finally:
        live.config_path.write_text(original)
    status, _, raw = call("POST", "/api/reload", live, token=ADMIN_TOKEN)
    assert status == 200 and json.loads(raw)["removed"] == ["r2"]


def test_cli_status_say_reload(live, capsys):
    base = ["--admin-url", live.url, "--token", ADMIN_TOKEN]
    assert admin_client.main(["status", *base]) == 0
    out = capsys.readouterr().out
    assert out.startswith("r1: ON AIR") and "sink ingest: DOWN" in out
    assert admin_client.main(["status", "--json", *base]) == 0
    assert json.loads(capsys.readouterr().out)["rooms"][0]["id"] == "r1"
    assert admin_client.main(["reload", *base]) == 0
    assert "unchanged: r1" in capsys.readouterr().out
    assert admin_client.main(["reload", "--dry-run", *base]) == 0
    assert capsys.readouterr().out.strip() == "r1: unchanged"
    assert admin_client.main(["status", "--admin-url", live.url, "--token", "bad"]) == 1
    assert "token was refused" in capsys.readouterr().err


def test_no_response_or_log_line_contains_the_stream_key(live, logbuf):
    # The dead sink has been failing (and logging) all along; look at everything the operator can see.
    assert wait_for(lambda: live.room("r1").status()["sinks"][1]["last_error"], 15)
    for path in ("/api/rooms", "/api/rooms/r1", "/api/rooms/r1/chat", "/metrics", "/readyz"):
        call("GET", path, live, token=ADMIN_TOKEN)
    logs = logbuf.getvalue()
    assert "ingest" in logs or "r1" in logs, "the daemon's logs were captured"
    for line in logs.splitlines():
        json.loads(line)  # every log line is one JSON object
    assert STREAM_KEY not in logs
    assert ADMIN_TOKEN not in logs
    leaked = [b for b in SEEN if STREAM_KEY.encode() in b]
    assert not leaked and len(SEEN) > 50


def test_generated_token_file_and_private_metrics(tmp_path, capsys):
    cfg = write_config(tmp_path / "config.yaml", rooms=[small_room("solo", [])], token=None,
                       metrics_public=False, port=free_port())
    d = DaemonThread(cfg).start()
    try:
        token_file = tmp_path / "state" / "admin.token"
        assert token_file.exists() and stat.S_IMODE(token_file.stat().st_mode) == 0o600
        token = token_file.read_text().strip()
        assert len(token) >= 32
        assert request("GET", d.url + "/metrics")[0] == 401
        assert request("GET", d.url + "/metrics", token=token)[0] == 200
        assert request("GET", d.url + "/api/rooms")[0] == 401
        # the CLI finds address and token through the config file alone
        os.environ.pop("VA_ADMIN_TOKEN", None)
        assert admin_client.main(["status", "--config", str(cfg), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["rooms"][0]["id"] == "solo"
    finally:
        d.stop()
    assert not token_file.exists(), "the generated token goes away with the daemon"


def test_reload_dry_run_tells_live_changes_from_cuts(live):
    original = live.config_path.read_text()
    data = yaml.safe_load(original)
    data["rooms"][0]["moderation"] = {"words": ["禁词"]}
    data["rooms"][0]["video"]["bitrate_kbps"] = 350
    data["rooms"].append(small_room("r3", []))
    live.config_path.write_text(yaml.safe_dump(data, allow_unicode=True))
    try:
        status, _, raw = call("POST", "/api/reload", live, token=ADMIN_TOKEN, body=b'{"dry_run": true}')
        plan = json.loads(raw)
        assert status == 200 and plan["dry_run"] is True
        assert plan["rooms"] == [
            {"room": "r1", "action": "cut", "sections": ["video", "moderation"], "cuts_stream": True},
            {"room": "r3", "action": "add", "sections": [], "cuts_stream": True},
        ]
        assert list(live.daemon.rooms) == ["r1"], "a dry run changes nothing"
        assert call("POST", "/api/reload", live, token=ADMIN_TOKEN, body=b'{"dry_run": "yes"}')[0] == 400
    finally:
        live.config_path.write_text(original)


def test_repeated_failed_tokens_from_one_address_are_slowed_down(tmp_path):
    cfg = write_config(tmp_path / "config.yaml", rooms=[small_room("solo", [])])
    _admin_settings(cfg, failed_tokens=3, lockout_max_s=60)
    d = DaemonThread(cfg).start()
    try:
        for _ in range(3):
            assert request("GET", d.url + "/api/rooms", token="guess")[0] == 401
        assert request("GET", d.url + "/api/rooms", token="guess")[0] == 401  # the 4th fails and locks
        status, headers, raw = request("GET", d.url + "/api/rooms", token="guess")
        assert status == 429 and int(headers["retry-after"]) >= 1 and "error" in json.loads(raw)
        # Locked out, the right token is not even compared (no oracle); public routes stay open.
        assert request("GET", d.url + "/api/rooms", token=ADMIN_TOKEN)[0] == 429
        assert request("GET", d.url + "/healthz")[0] == 200
        assert wait_for(lambda: request("GET", d.url + "/api/rooms", token=ADMIN_TOKEN)[0] == 200, 5)
        assert request("GET", d.url + "/api/rooms", token="guess")[0] == 401
        assert request("GET", d.url + "/api/rooms", token="guess")[0] == 429, "the next lockout is longer"
    finally:
        d.stop()
