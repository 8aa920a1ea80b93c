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


BOMB = "\n".join(
    ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    + ["rooms: [{id: x}]"]
)


@pytest.mark.parametrize(
    "text,expect",
    [
        (BOMB, "<top>: its aliases expand to more than 100000 values (an alias bomb?)"),
        ("rooms: &r [*r]\n", "line 1 column 8: an alias refers to the node it is in (recursion)"),
        ("a: &a {x: 1, y: *a}\nrooms: [{id: r}]\n", "an alias refers to the node it is in (recursion)"),
        ("rooms: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 32 levels deep"),
        ("\n".join(["a0: &a0 [1]"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, 40)]) + "\nrooms: [{id: r}]\n",
         "its aliases nest more than 32 levels deep"),
        ("rooms: [{id: r}]\n#" + "x" * (1 << 20) + "\n", "larger than 1024 KiB"),
        ("rooms: [{id: r}]\0\n", "not a text file"),
    ],
    ids=["alias-bomb", "recursive-alias", "recursive-mapping", "deep", "alias-chain", "huge", "nul"],
)
def test_hostile_files_are_refused_quickly_in_one_line(tmp_path, text, expect):
    cfg = tmp_path / "hostile.yaml"
    cfg.write_text(text)
    res = run_cli("check", "-c", str(cfg))
    assert res.returncode == 2, res.stderr[-2000:]
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and str(cfg) in lines[0] and expect in lines[0], lines[:3]


def test_dev_zero_is_refused_without_reading_it_all():
    res = run_cli("check", "-c", "/dev/zero")
    assert res.returncode == 2, res.stderr[-2000:]
    assert res.stderr.strip() == "config error: /dev/zero: <top>: larger than 1024 KiB: not a config file"


@pytest.mark.parametrize(
    "room,key,problem",
    [
        ("director: {talk: {file: talk.yaml}}", "rooms[0].director.talk.file", "file '{tmp}/talk.yaml' does not exist"),
        ("moderation: {words_file: words.txt}", "rooms[0].moderation.words_file",
         "file '{tmp}/words.txt' does not exist"),
        ("brain: {kb: {dir: kb}}", "rooms[0].brain.kb.dir", "folder '{tmp}/kb' does not exist"),
        ("brain: {kb: {dir: notadir.txt}}", "rooms[0].brain.kb.dir", "'{tmp}/notadir.txt' is not a folder"),
        ("brain: {cache: {faq_files: [notadir.txt, faq.yaml]}}", "rooms[0].brain.cache.faq_files[1]",
         "file '{tmp}/faq.yaml' does not exist"),
        ("sources: [{type: replay, path: chat.jsonl}]", "rooms[0].sources[0].path",
         "file '{tmp}/chat.jsonl' does not exist"),
        ("avatar: {overlays: {subtitle: {font: nofont.ttf}}}", "rooms[0].avatar.overlays.subtitle.font", "nofont.ttf"),
        ("avatar: {kind: portrait, path: face.jpg}", "rooms[0].avatar.path", "face.jpg"),
    ],
)
def test_every_file_the_config_names_is_checked(tmp_path, room, key, problem):
    (tmp_path / "notadir.txt").write_text("x")
    cfg = tmp_path / "files.yaml"
    cfg.write_text(f"rooms:\n  - id: r\n    {room}\n")
    for command in ("check", "run"):  # run refuses the same way, before anything goes on air
        res = run_cli(command, "-c", str(cfg))
        assert res.returncode == 2, (command, res.stderr[-2000:])
        line = res.stderr.strip()
        assert "\n" not in line and f"{cfg}: {key}: " in line and problem.replace("{tmp}", str(tmp_path)) in line, line


def test_files_the_daemon_writes_need_not_exist(tmp_path):
    cfg = tmp_path / "w.yaml"
    cfg.write_text(f"daemon: {{state_dir: {tmp_path}/state/new}}\nrooms:\n  - id: r\n    audit: {{path: a/audit.jsonl}}\n"
                   f"    outputs: [{{type: record, path: rec/r.flv}}]\n")
    assert run_cli("check", "-c", str(cfg)).returncode == 0


def test_a_short_secret_in_a_wrong_typed_key_is_not_quoted(tmp_path):
    cfg = tmp_path / "s.yaml"
    cfg.write_text('daemon: {admin: {port: "sk_9f8e7d"}}\nrooms:\n  - id: r\n    video: {preset: "k3y-abc"}\n')
    res = run_cli("check", "-c", str(cfg))
    assert res.returncode == 2 and "sk_9f8e7d" not in res.stderr and "a string of 9 characters" in res.stderr
    cfg.write_text('rooms:\n  - id: r\n    video: {preset: "k3y-abc"}\n')
    res = run_cli("check", "-c", str(cfg))
    assert res.returncode == 2 and "k3y-abc" not in res.stderr and "rooms[0].video.preset" in res.stderr
