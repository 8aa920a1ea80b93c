"""A rendered room pod, run here: its ConfigMaps published as the kubelet publishes them, its env as the pod
spec sets it (Secrets filled in), its command line. `virtual-anchor check` accepts every overlay's config; the
shop room goes on air, answers the probes and the image's HEALTHCHECK without a token, reloads a ConfigMap
edit live (the kubelet's symlink swap, the old folder deleted) and ends with exit 0 on SIGTERM."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from broadcaster.brain.corpus import load_corpus
from tests.deploy.deploy_support import (
    KUSTOMIZE,
    OVERLAYS,
    RoomPod,
    healthcheck_command,
    kubelet_publish,
    lay_out_room,
    process_env,
    render,
)
from tests.ops.ops_support import request
from tests.support.servers import free_port

VIRTUAL_ANCHOR = Path(sys.executable).parent / "virtual-anchor"  # the console script the image runs


@pytest.mark.parametrize("overlay", ["base", *(f"overlays/{o}" for o in OVERLAYS)])
def test_every_room_config_passes_check_with_the_pods_env(overlay: str, tmp_path: Path) -> None:
    pod = lay_out_room(render(KUSTOMIZE / overlay), tmp_path)
    out = subprocess.run([str(VIRTUAL_ANCHOR), "check", *pod.args[1:]], env=process_env(pod.env),
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    resolved = yaml.safe_load(out.stdout)
    assert resolved["daemon"]["admin"] == {**resolved["daemon"]["admin"], "host": "0.0.0.0",
                                           "port": int(pod.env["VA_ADMIN_PORT"])}
    assert resolved["daemon"]["state_dir"] == pod.env["VA_STATE_DIR"]
    # Secrets stay out of check's output: the stream key and the admin token are redacted.
    for secret in (pod.env["VA_STREAM_URL"].rsplit("/", 1)[1], pod.env["VA_ADMIN_TOKEN"]):
        assert secret not in out.stdout


def test_check_fails_when_a_secret_the_config_needs_is_missing(tmp_path: Path) -> None:
    """The check above is not vacuous: without the stream Secret the config is refused, naming the key."""
    pod = lay_out_room(render(KUSTOMIZE / "overlays" / OVERLAYS[0]), tmp_path)
    env = {k: v for k, v in pod.env.items() if k != "VA_STREAM_URL"}
    out = subprocess.run([str(VIRTUAL_ANCHOR), "check", *pod.args[1:]], env=process_env(env),
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 2 and "VA_STREAM_URL" in out.stderr, out.stderr


def test_a_configmap_knowledge_base_is_read_once(tmp_path: Path) -> None:
    pod = lay_out_room(render(KUSTOMIZE / "overlays" / OVERLAYS[0]), tmp_path)
    cm, where = pod.configmap("kb")
    corpus = load_corpus(where)
    sources = {p.id.split("#")[0] for p in corpus.passages}
    assert sources == set(cm["data"]), sorted(sources)


def _logs(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def _wait(predicate, timeout: float, what: str, log: Path) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.2)
    tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
    pytest.fail(f"{what} within {timeout:.0f} s; daemon log:\n{tail}")


@dataclass
class RunningRoom:
    pod: RoomPod
    proc: subprocess.Popen
    log: Path
    base: str

    def status(self, path: str, token: str | None = None) -> int:
        try:
            return request("GET", self.base + path, token=token, timeout=5)[0]
        except OSError:
            return 0


@contextmanager
def room_pod_running(tmp_path: Path, ingest) -> Iterator[RunningRoom]:
    """The shop overlay's pod, run as the pod would run it, on air and ready."""
    objs = render(KUSTOMIZE / "overlays" / "shop")
    pod = lay_out_room(objs, tmp_path / "pod", stream_url=ingest.url)
    # A pod has a network namespace of its own; here the admin port must be free on the shared host.
    port = free_port()
    pod.env["VA_ADMIN_PORT"] = str(port)
    log = tmp_path / "daemon.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen([str(VIRTUAL_ANCHOR), *pod.args], env=process_env(pod.env), cwd=tmp_path,
                                stdout=sink, stderr=subprocess.STDOUT)
    room = RunningRoom(pod, proc, log, f"http://127.0.0.1:{port}")
    try:
        _wait(lambda: proc.poll() is not None or room.status("/readyz") == 200, 180, "/readyz never said ready", log)
        assert proc.poll() is None, log.read_text()[-3000:]
        assert ingest.wait_publisher(60), "the room never published to the stream URL from its Secret"
        yield room
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


@pytest.mark.slow
def test_the_room_pod_goes_on_air_answers_its_probes_and_stops_cleanly(tmp_path: Path, ffmpeg_ingest) -> None:
    with room_pod_running(tmp_path, ffmpeg_ingest()) as room:
        # The kubelet's probes and the image's HEALTHCHECK carry no token; the API does want it.
        assert room.status("/healthz") == 200
        assert room.status("/api/rooms") == 401
        assert room.status("/api/rooms", room.pod.env["VA_ADMIN_TOKEN"]) == 200
        check = healthcheck_command()
        hc_env = process_env({"VA_ADMIN_PORT": room.pod.env["VA_ADMIN_PORT"]})
        assert subprocess.run([sys.executable, *check[1:]], env=hc_env, timeout=30).returncode == 0
        # SIGTERM (the kubelet's stop): the sentence ends, the streams close, exit 0 within the grace period.
        sts = next(o for o in room.pod.objs if o["kind"] == "StatefulSet")
        room.proc.send_signal(signal.SIGTERM)
        assert room.proc.wait(sts["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]) == 0
        # Once the daemon is gone the HEALTHCHECK fails: it checks something.
        assert subprocess.run([sys.executable, *check[1:]], env=hc_env, timeout=30,
                              capture_output=True).returncode != 0


@pytest.mark.slow
def test_a_configmap_edit_is_reloaded_live_in_the_running_pod(tmp_path: Path, ffmpeg_ingest) -> None:
    with room_pod_running(tmp_path, ffmpeg_ingest()) as room:
        # A ConfigMap edit: the kubelet swaps ..data to a new folder and deletes the old one.
        cm, where = room.pod.configmap("config")
        edited = cm["data"]["config.yaml"].replace("name: 小安", "name: 小宁")
        assert edited != cm["data"]["config.yaml"]
        kubelet_publish(where, {**cm["data"], "config.yaml": edited})
        _wait(lambda: any("applied live shop" in r.get("msg", "") for r in _logs(room.log)), 20,
              "the ConfigMap edit was not applied live", room.log)
        assert room.proc.poll() is None
        dry = request("POST", room.base + "/api/reload", token=room.pod.env["VA_ADMIN_TOKEN"],
                      body=json.dumps({"dry_run": True}).encode(), headers={"Content-Type": "application/json"})
        assert dry[0] == 200, dry
        assert [r["action"] for r in json.loads(dry[2])["rooms"]] == ["keep"]  # the running config is the edited file
