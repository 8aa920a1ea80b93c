"""daemon.watch_config: a config file swapped in the way a Kubernetes ConfigMap is (a `..data` symlink pointed at a
new folder, the old folder deleted) is reloaded exactly as SIGHUP would, once per change; a broken one is refused
once and not retried until it changes again."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import time
from pathlib import Path

import yaml

from broadcaster.config import load_config
from broadcaster.daemon import Daemon
from tests.ops.ops_support import NotifyListener, notify_socket

__all__ = ["notify_socket"]  # the fixture: a real datagram socket standing in for systemd's


def _config(tmp: Path, persona: str, **room: object) -> str:
    return yaml.safe_dump({
        "daemon": {"admin": {"port": 0}, "state_dir": str(tmp / "state"), "workers": {"mode": "inline"}},
        "rooms": [{"id": "r", "video": {"width": 160, "height": 96, "fps": 25}, "outputs": [],
                   "brain": {"persona": {"name": persona}}, "audit": {"path": str(tmp / "audit.jsonl")}, **room}],
    }, allow_unicode=True)


class ConfigMapVolume:
    """The kubelet's layout: config.yaml → ..data/config.yaml, ..data → ..<version>/ (swapped atomically)."""

    def __init__(self, root: Path):
        self.root, self.version = root, 0
        root.mkdir()
        (root / "config.yaml").symlink_to("..data/config.yaml")

    @property
    def path(self) -> Path:
        return self.root / "config.yaml"

    def publish(self, text: str, **files: str) -> None:
        """A new version of the ConfigMap: config.yaml and any other keys (words.txt=…), all swapped at once."""
        old = (self.root / "..data").resolve() if (self.root / "..data").exists() else None
        self.version += 1
        folder = self.root / f"..v{self.version}"
        folder.mkdir()
        (folder / "config.yaml").write_text(text, encoding="utf-8")
        for name, body in files.items():
            (folder / name).write_text(body, encoding="utf-8")
            if not (self.root / name).is_symlink():
                (self.root / name).symlink_to(f"..data/{name}")
        tmp_link = self.root / "..data_tmp"
        tmp_link.symlink_to(folder.name)
        os.replace(tmp_link, self.root / "..data")
        if old is not None:
            shutil.rmtree(old)


async def _until(pred, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


async def test_a_configmap_swap_reloads_like_sighup_once_per_change(tmp_path, caplog, monkeypatch,
                                                                    notify_socket: NotifyListener):
    monkeypatch.setenv("NOTIFY_SOCKET", notify_socket.env_value)
    sent: list[dict[str, str]] = []

    def status_sent(text: str) -> bool:
        sent.extend(notify_socket.messages())
        return any(m.get("STATUS", "").startswith(text) for m in sent)

    volume = ConfigMapVolume(tmp_path / "etc")
    volume.publish(_config(tmp_path, "小安"))
    daemon = Daemon(load_config(volume.path), volume.path)
    caplog.set_level(logging.INFO)
    await daemon.start()
    try:
        room = daemon.rooms["r"]
        await asyncio.sleep(2.5)  # a poll or more with nothing changed: nothing reloads
        assert daemon.last_reload is None

        volume.publish(_config(tmp_path, "小新"))
        await _until(lambda: daemon.last_reload is not None, 15, "the watcher's reload")
        assert daemon.last_reload["live"] == ["r"] and not daemon.last_reload["failed"], daemon.last_reload
        assert daemon.rooms["r"] is room and room.show.brain.cfg.persona.name == "小新"
        await _until(lambda: status_sent("reloaded: applied live r"), 5, "STATUS as after a SIGHUP")
        assert {"RELOADING": "1", "STATUS": "reloading config"} in sent

        volume.publish("rooms: [")  # broken: refused once, and the running config stays
        await _until(lambda: "reload refused" in caplog.text, 15, "the refusal")
        await asyncio.sleep(4.5)  # two more polls of the same broken file
        assert caplog.text.count("reload refused, keeping the running config") == 1
        assert status_sent("reload refused, the running config stays")
        assert daemon.config.room("r").brain.persona.name == "小新"
        assert caplog.text.count("changed; reloading") == 2, "one reload per change of the file"
    finally:
        await daemon.stop()


async def test_a_configmap_edit_of_a_named_file_alone_reloads_that_section(tmp_path, caplog):
    """The words file lives in the same ConfigMap as the config, which does not change: the watcher still sees
    the edit (it watches every file the rooms name) and the moderation section applies live."""
    volume = ConfigMapVolume(tmp_path / "etc")
    text = _config(tmp_path, "小安", moderation={"words_file": "words.txt"})  # relative to the config's folder
    volume.publish(text, **{"words.txt": "苹果派\n"})
    daemon = Daemon(load_config(volume.path), volume.path)
    caplog.set_level(logging.INFO)
    await daemon.start()
    try:
        room = daemon.rooms["r"]
        assert room.show.director.moderator.check("香蕉船来了").ok
        volume.publish(text, **{"words.txt": "苹果派\n香蕉船\n"})
        await _until(lambda: daemon.last_reload is not None, 15, "the watcher's reload")
        assert daemon.last_reload["live"] == ["r"] and not daemon.last_reload["failed"], daemon.last_reload
        assert daemon.rooms["r"] is room and not room.show.director.moderator.check("香蕉船来了").ok
        await asyncio.sleep(4.5)  # two more polls: applied once
        assert caplog.text.count("changed; reloading") == 1
    finally:
        await daemon.stop()
