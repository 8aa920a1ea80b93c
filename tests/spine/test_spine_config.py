"""Config mistakes: one clear line naming file, key and expectation, exit code 2; `check` redacts secrets."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.servers import ROOT

GOOD = """
daemon:
  admin: {token: "${ADMIN_TOKEN}"}
rooms:
  - id: shop
    outputs:
      - type: rtmp
        url: rtmp://live-push.example.com/live-bvc/?streamname=live_1_2&key=${STREAM_KEY}
      - type: record
        path: {tmp}/rec.flv
"""


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "broadcaster.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=60)


def test_check_prints_resolved_config_with_secrets_redacted(tmp_path):
    cfg = tmp_path / "a.yaml"
    cfg.write_text(GOOD.replace("{tmp}", str(tmp_path)))
    env = {"STREAM_KEY": "0123456789abcdef", "ADMIN_TOKEN": "tok-very-secret", "PATH": "/usr/bin:/bin"}
    res = run_cli("check", "-c", str(cfg), env=env)
    assert res.returncode == 0, res.stderr
    assert "0123456789abcdef" not in res.stdout + res.stderr
    assert "tok-very-secret" not in res.stdout + res.stderr
    assert "rtmp://live-push.example.com/live-bvc/***" in res.stdout
    assert "width: 1280" in res.stdout


@pytest.mark.parametrize(
    "mutate,expect",
    [
        (lambda t: t.replace("    outputs:", "    outptus:"), "rooms[0].outptus: unknown key"),
        (lambda t: t.replace("  - id: shop", "  - id: shop\n    video: {fps: fast}"), "rooms[0].video.fps"),
        (lambda t: t, "rooms[0].outputs[0].url: environment variable STREAM_KEY is not set"),
        (lambda t: t.replace("{tmp}/rec.flv", "/etc/hostname/sub/rec.flv"),
         "rooms[0].outputs[1].path: directory '/etc/hostname/sub' does not exist and cannot be created"),
        (lambda t: t.replace("type: rtmp", "type: srt"), "rooms[0].outputs[0]: type 'srt' is not one of"),
        (lambda t: t.replace("rooms:", "rooms: [\n"), "invalid YAML"),
    ],
)
def test_bad_config_is_one_clear_line_and_exit_2(tmp_path, mutate, expect):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(mutate(GOOD).replace("{tmp}", str(tmp_path)))
    env = {"ADMIN_TOKEN": "x", "PATH": "/usr/bin:/bin"}
    if "STREAM_KEY" not in expect:
        env["STREAM_KEY"] = "k"
    res = run_cli("check", "-c", str(cfg), env=env)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert str(cfg) in lines[0] and expect in lines[0], lines[0]


def test_missing_file_exit_2(tmp_path):
    res = run_cli("run", "-c", str(tmp_path / "nope.yaml"))
    assert res.returncode == 2 and "file not found" in res.stderr
