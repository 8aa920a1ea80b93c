"""Helpers for the deploy tests: render the Kustomize trees, publish a ConfigMap the way the kubelet does,
and lay out a room pod's volumes and environment on this machine."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.support.programs import require_program

ROOT = Path(__file__).resolve().parents[2]
KUSTOMIZE = ROOT / "deploy" / "kustomize"
SCHEMAS = ROOT / "deploy" / "schemas"
OVERLAYS = sorted(p.parent.name for p in (KUSTOMIZE / "overlays").glob("*/kustomization.yaml"))
SHARED = ["redis", "face"]  # applied once per namespace, beside the rooms


def render(path: Path) -> list[dict[str, Any]]:
    """`kubectl kustomize PATH`: the objects an apply would send."""
    kubectl = require_program("kubectl")
    out = subprocess.run([kubectl, "kustomize", str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"kubectl kustomize {path} failed:\n{out.stderr}"
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def one(objs: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    found = [o for o in objs if o["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, got {[o['metadata']['name'] for o in found]}"
    return found[0]


def by_name(objs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [o for o in objs if o["kind"] == kind and o["metadata"]["name"] == name]
    assert found, f"no {kind} {name!r} in {[(o['kind'], o['metadata']['name']) for o in objs]}"
    return found[0]


def container(workload: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in workload["spec"]["template"]["spec"]["containers"] if c["name"] == name)


def crd_schema(obj: dict[str, Any]) -> dict[str, Any]:
    """The repo's JSON schema for a custom resource, named like kubernetes-validate's files."""
    group, version = obj["apiVersion"].split("/")
    path = SCHEMAS / f"{obj['kind'].lower()}-{group.split('.')[0]}-{version}.json"
    assert path.is_file(), f"no schema for {obj['kind']} ({obj['apiVersion']}) in {SCHEMAS}"
    return json.loads(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------- a ConfigMap, as the kubelet writes it


def kubelet_publish(target: Path, data: Mapping[str, str]) -> None:
    """Writes (or updates) a ConfigMap volume exactly as the kubelet's atomic writer does: the files in a new
    `..<timestamp>` folder, the `..data` link swapped to it by a rename, one `<key> -> ..data/<key>` link per
    key, and the previous timestamped folder deleted."""
    target.mkdir(parents=True, exist_ok=True)
    data_link = target / "..data"
    old = os.readlink(data_link) if data_link.is_symlink() else None
    stamp = time.strftime("..%Y_%m_%d_%H_%M_%S.", time.gmtime()) + f"{time.monotonic_ns() % 10**9:09d}"
    folder = target / stamp
    folder.mkdir()
    for key, text in data.items():
        (folder / key).write_text(text, encoding="utf-8")
    tmp_link = target / "..data_tmp"
    tmp_link.symlink_to(stamp)
    tmp_link.rename(data_link)  # the atomic swap
    for key in data:
        if not (target / key).is_symlink():
            (target / key).symlink_to(f"..data/{key}")
    for entry in target.iterdir():
        if entry.is_symlink() and not entry.name.startswith("..") and entry.name not in data:
            entry.unlink()
    if old is not None:
        shutil.rmtree(target / old)


# ------------------------------------------------------------------------------ a room pod on this machine


@dataclass
class RoomPod:
    """A rendered room overlay laid out under `root`: every volume at root/<mountPath> (ConfigMaps published
    as the kubelet does), the container's env with its Secrets filled in, and its command line, with each
    path under a mount moved below root the same way."""

    root: Path
    objs: list[dict[str, Any]]
    env: dict[str, str]
    args: list[str]

    @property
    def config(self) -> Path:
        return Path(self.args[self.args.index("--config") + 1])

    def configmap(self, volume: str) -> tuple[dict[str, Any], Path]:
        """The ConfigMap behind a volume of the room container, and where it is published."""
        sts = one(self.objs, "StatefulSet")
        vol = next(v for v in sts["spec"]["template"]["spec"]["volumes"] if v["name"] == volume)
        mount = next(m for m in container(sts, "room")["volumeMounts"] if m["name"] == volume)
        return by_name(self.objs, "ConfigMap", vol["configMap"]["name"]), self.root / mount["mountPath"].lstrip("/")


def secret_value(secret: str, key: str, stream_url: str) -> str:
    """What the operator's Secret would hold: the stream URL under `url`, a token-like string otherwise."""
    return stream_url if key == "url" else f"{secret}-{key}-value"


def lay_out_room(objs: list[dict[str, Any]], root: Path, *, stream_url: str = "rtmp://127.0.0.1:1/live/sk_stream_9f3c0ffee_NOT_FOR_LOGS",
                 optional_secrets: bool = False) -> RoomPod:
    sts = one(objs, "StatefulSet")
    spec = sts["spec"]["template"]["spec"]
    room = container(sts, "room")
    mounts = {m["mountPath"]: m["name"] for m in room["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    claims = {c["metadata"]["name"] for c in sts["spec"].get("volumeClaimTemplates", [])}

    def moved(value: str) -> str:
        for mount_path in sorted(mounts, key=len, reverse=True):
            if value == mount_path or value.startswith(mount_path + "/"):
                return str(root / value.lstrip("/"))
        return value

    for mount_path, name in mounts.items():
        where = root / mount_path.lstrip("/")
        volume = volumes.get(name)
        if volume is not None and "configMap" in volume:
            cm = by_name(objs, "ConfigMap", volume["configMap"]["name"])
            kubelet_publish(where, cm.get("data", {}))
        else:
            assert name in claims or (volume is not None and "emptyDir" in volume), f"volume {name}: {volume}"
            where.mkdir(parents=True, exist_ok=True)
    env: dict[str, str] = {}
    for item in room.get("env", []):
        if "value" in item:
            env[item["name"]] = moved(item["value"])
            continue
        ref = item["valueFrom"]["secretKeyRef"]
        if ref.get("optional") and not optional_secrets:
            continue  # an optional key the Secret does not have: the variable is not set
        env[item["name"]] = secret_value(ref["name"], ref["key"], stream_url)
    args = [moved(a) for a in room["args"]]
    return RoomPod(root, objs, env, args)


def process_env(pod_env: Mapping[str, str]) -> dict[str, str]:
    """The environment a test process gets: the pod's, plus what is needed to find Python here."""
    keep = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "CI") if k in os.environ}
    return {**keep, **pod_env}


# ------------------------------------------------------------------------------------------ Dockerfiles


def instructions(name: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile: comments dropped, continuation lines joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in (ROOT / name).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue  # a comment inside a continued instruction
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        word, _, rest = full.partition(" ")
        out.append((word.upper(), rest.strip()))
    assert not pending, f"{name} ends inside a continued line"
    return out


def final_stage(name: str) -> list[tuple[str, str]]:
    ins = instructions(name)
    last_from = max(i for i, (word, _) in enumerate(ins) if word == "FROM")
    return ins[last_from:]


def healthcheck_command(name: str = "Dockerfile") -> list[str]:
    """The HEALTHCHECK's CMD, exec form, as a list."""
    rest = next(rest for w, rest in final_stage(name) if w == "HEALTHCHECK")
    m = re.search(r"\bCMD\s+(\[.*\])\s*$", rest)
    assert m, f"{name}: HEALTHCHECK must use CMD in exec form (the image has no shell tools to rely on)"
    return json.loads(m.group(1))
