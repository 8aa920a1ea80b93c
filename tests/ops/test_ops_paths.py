"""`check` and `run` try every folder the daemon writes, as root and as an unprivileged user (issue 24): each
problem is one line naming file, key and what is wrong, exit 2; nothing is left behind; read-only commands and
loading a config never probe; a reload cannot hand a room's media over to a folder it cannot write."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from privileges import USERS, User, cli, open_folder, tmpfs, user

from broadcaster.config import load_config
from broadcaster.daemon import Daemon
from broadcaster.paths import probe_folder
from tests.support.servers import free_port


def write(d: Path, rooms: list[dict[str, Any]], **daemon: Any) -> Path:
    cfg = d / "cfg.yaml"
    cfg.write_text(yaml.safe_dump({
        "daemon": {"state_dir": str(d / "state"), "admin": {"port": free_port(), "token": "t"},
                   "workers": {"mode": "inline"}, "watch_config": False, **daemon},
        "rooms": rooms,
    }))
    cfg.chmod(0o644)
    return cfg


def recording(path: str | Path, rid: str = "r", **extra: Any) -> dict[str, Any]:
    return {"id": rid, "outputs": [{"type": "record", "path": str(path)}], **extra}


def snapshot(d: Path) -> set[str]:
    return {str(p.relative_to(d)) for p in d.rglob("*")}


def setup(who: User, d: Path) -> Path:
    """The user's home and state folder; returns the home."""
    home = d / "home"
    home.mkdir()
    (d / "plain").write_text("a regular file\n")
    who.own(home, d / "plain")
    return home


# (name, writes the config in d and returns (key, problem) check must print, or None where this user may write)
Case = Callable[[Path, User], tuple[Path, tuple[str, str] | None]]


def _proc(d: Path, who: User):
    return write(d, [recording("/proc/va-nope/x.flv")]), (
        "rooms[0].outputs[0].path", "directory '/proc/va-nope' does not exist and cannot be created: ")


def _ancestor_file(d: Path, who: User):
    return write(d, [recording(d / "plain" / "sub" / "x.flv")]), (
        "rooms[0].outputs[0].path",
        f"directory '{d}/plain/sub' does not exist and cannot be created: '{d}/plain' is a file, not a directory")


def _read_only_folder(d: Path, who: User):
    (d / "ro").mkdir()
    (d / "ro").chmod(0o555)
    cfg = write(d, [recording(d / "ro" / "x.flv")])
    if who.name == "root":  # root may write in a folder of mode 0555: nothing to refuse
        return cfg, None
    return cfg, ("rooms[0].outputs[0].path", f"directory '{d}/ro' is not writable: Permission denied")


def _state_dir_file(d: Path, who: User):
    return write(d, [recording(d / "state" / "x.flv")], state_dir=str(d / "plain")), (
        "daemon.state_dir", f"'{d}/plain' is a file, not a directory")


CASES: dict[str, Case] = {"proc": _proc, "ancestor_file": _ancestor_file, "read_only_folder": _read_only_folder,
                          "state_dir_file": _state_dir_file}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("who_name", USERS)
def test_check_prints_the_one_line_of_each_case(case, who_name):
    who = user(who_name)
    with open_folder() as d:
        home = setup(who, d)
        (d / "state").mkdir()
        who.own(d / "state")
        cfg, expect = CASES[case](d, who)
        before = snapshot(d)
        res = who.run(cli("check", "-c", str(cfg)), home)
        assert snapshot(d) == before, "the probe and the folders it made are gone"
    if expect is None:
        assert res.returncode == 0, res.stderr
        assert "rooms:" in res.stdout
        return
    key, problem = expect
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"config error: {cfg}: {key}: {problem}"), lines[0]
    assert res.stdout == ""


@pytest.mark.parametrize("who_name", USERS)
def test_a_read_only_mount_is_refused_for_root_too(who_name):
    """os.access() says yes to root on a read-only mount; the probe file is what tells."""
    who = user(who_name)
    with open_folder() as d:
        home = setup(who, d)
        with tmpfs(d / "ro", "ro,size=64k,mode=0777"):
            cfg = write(d, [recording(d / "ro" / "x.flv"), recording(d / "ro" / "rec" / "x.flv", "b")],
                        state_dir=str(home))
            res = who.run(cli("check", "-c", str(cfg)), home)
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stderr.strip().splitlines() == [
        f"config error: {cfg}: rooms[0].outputs[0].path: directory '{d}/ro' is not writable: Read-only file system",
        f"config error: {cfg}: rooms[1].outputs[0].path: directory '{d}/ro/rec' does not exist and cannot be "
        "created: Read-only file system",
    ]


@pytest.mark.parametrize("who_name", USERS)
def test_a_full_disk_is_refused(who_name):
    """The probe file is made (a free inode) but its first byte is refused."""
    who = user(who_name)
    with open_folder() as d:
        home = setup(who, d)
        with tmpfs(d / "disk", "size=64k,mode=0777"):
            fd = os.open(d / "disk" / "filler", os.O_WRONLY | os.O_CREAT)
            with pytest.raises(OSError, match="No space left"):
                while True:
                    os.write(fd, b"\0" * 4096)
            os.close(fd)
            cfg = write(d, [recording(d / "disk" / "x.flv")], state_dir=str(home))
            res = who.run(cli("check", "-c", str(cfg)), home)
            left = sorted(os.listdir(d / "disk"))
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stderr.strip().splitlines() == [
        f"config error: {cfg}: rooms[0].outputs[0].path: directory '{d}/disk' is not writable: No space left on device"
    ]
    assert left == ["filler"], "the probe file is removed"


@pytest.mark.parametrize("who_name", USERS)
def test_check_lists_every_problem_and_run_refuses_them_before_going_on_air(who_name):
    who = user(who_name)
    with open_folder() as d:
        home = setup(who, d)
        cfg = write(d, [
            recording("/proc/va-nope/%Y/x.flv", "a", audit={"path": str(d / "plain" / "audit" / "a.jsonl")}),
            recording(d / "plain" / "rec" / "{n}.flv", "b", voice={"embeddings_dir": "/proc/va-speakers"}),
        ], state_dir=str(d / "plain"), services={"socket_dir": str(d / "plain" / "sock")})
        before = snapshot(d)
        checked = who.run(cli("check", "-c", str(cfg)), home)
        ran = who.run(cli("run", "-c", str(cfg)), home, timeout=120)
        assert snapshot(d) == before
    year = datetime.now().year
    file_ = f"'{d}/plain' is a file, not a directory"
    expect = [
        ("daemon.state_dir", file_),
        ("daemon.services.socket_dir", f"directory '{d}/plain/sock' does not exist and cannot be created: {file_}"),
        ("rooms[0].outputs[0].path", f"directory '/proc/va-nope/{year}' does not exist and cannot be created"),
        ("rooms[0].audit.path", f"directory '{d}/plain/audit' does not exist and cannot be created: {file_}"),
        ("rooms[1].outputs[0].path", f"directory '{d}/plain/rec' does not exist and cannot be created: {file_}"),
        ("rooms[1].voice.embeddings_dir", "directory '/proc/va-speakers' does not exist and cannot be created"),
    ]
    assert checked.returncode == 2 and checked.stdout == "", checked.stdout + checked.stderr
    lines = checked.stderr.strip().splitlines()
    assert len(lines) == len(expect), checked.stderr
    for line, (key, problem) in zip(lines, expect, strict=True):
        assert line.startswith(f"config error: {cfg}: {key}: {problem}"), line
    # `run` says the same and exits before any room, service or admin port is started.
    assert ran.returncode == 2, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert [x for x in ran.stderr.splitlines() if x.startswith("config error:")] == lines
    assert "on air" not in ran.stdout + ran.stderr


@pytest.mark.parametrize("who_name", USERS)
def test_a_good_config_passes_and_leaves_no_trace(who_name):
    """Missing folders (a dated one from strftime among them) are made for the try and removed again."""
    who = user(who_name)
    with open_folder() as d:
        home = setup(who, d)
        who.own(d)
        cfg = write(d, [recording(d / "rec" / "%Y-%m-%d" / "{n}.flv", audit={"path": str(d / "logs" / "a" / "x.jsonl")},
                                  voice={"embeddings_dir": str(d / "speakers")})],
                    state_dir=str(d / "state" / "deep"), services={"socket_dir": str(d / "sock")})
        who.own(d)
        before = snapshot(d)
        res = who.run(cli("check", "-c", str(cfg)), home)
        assert snapshot(d) == before, "nothing made by the probe is left"
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""


@pytest.mark.parametrize("who_name", USERS)
def test_read_only_commands_never_probe(who_name):
    """An operator who cannot write the daemon's folders can still ask it how it is: `status` reads the config
    (for the admin address) without judging the folders, so it fails only because no daemon answers here."""
    who = user(who_name)
    with open_folder() as d:
        home = setup(who, d)
        cfg = write(d, [recording("/proc/va-nope/x.flv")], state_dir=str(d / "plain"))
        res = who.run(cli("status", "-c", str(cfg), "--token", "t"), home)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "cannot reach the daemon" in res.stderr, res.stderr
    assert "config" not in res.stderr and "cannot be created" not in res.stderr


def test_loading_a_config_creates_nothing(tmp_path):
    """What every read-only command does with the config: no folder made, nothing tried."""
    cfg = write(tmp_path, [recording(tmp_path / "rec" / "x.flv", audit={"path": str(tmp_path / "logs" / "a.jsonl")})],
                state_dir=str(tmp_path / "state"))
    before = snapshot(tmp_path)
    load_config(cfg)
    assert snapshot(tmp_path) == before


def test_probe_removes_only_what_it_made(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "keep.txt").write_text("x")
    assert probe_folder(tmp_path / "a" / "b" / "c") is None
    assert sorted(os.listdir(tmp_path / "a")) == ["keep.txt"]
    assert probe_folder(tmp_path / "a" / "keep.txt") == f"'{tmp_path}/a/keep.txt' is a file, not a directory"


async def test_a_media_reload_to_a_folder_it_cannot_write_is_refused_and_the_room_stays_on_air(tmp_path):
    path = write(tmp_path, [recording(tmp_path / "r.flv", video={"width": 160, "height": 96, "fps": 10,
                                                                  "bitrate_kbps": 100})], admin={"port": 0})
    daemon = Daemon(load_config(path), path)
    await daemon.start()
    try:
        before = daemon.rooms["r"]
        await asyncio.sleep(1.0)
        bad = recording("/proc/va-nope/r.flv", video={"width": 160, "height": 96, "fps": 10, "bitrate_kbps": 100})
        write(tmp_path, [bad, recording(tmp_path / "plain" / "b.flv", "b")], admin={"port": 0})
        (tmp_path / "plain").write_text("a file\n")
        result = await daemon.reload()
        assert result["changed"] == [] and result["added"] == []
        assert result["failed"]["r"].startswith(
            f"{path}: rooms[0].outputs[0].path: directory '/proc/va-nope' does not exist and cannot be created"), result
        assert result["failed"]["b"] == f"{path}: rooms[1].outputs[0].path: '{tmp_path}/plain' is a file, not a directory"
        assert daemon.rooms["r"] is before and before.clock.running, "the room streams on with its old config"
        assert list(daemon.rooms) == ["r"]
    finally:
        await daemon.stop()
