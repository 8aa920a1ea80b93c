"""The Kubernetes manifests (deploy/kustomize): every overlay renders with `kubectl kustomize`, validates
against the API schemas (strict) and the repo's monitoring CRD schemas, and has the properties a room
needs: one publisher per stream, probes on the public health paths, a live-reloadable config, its state on
a volume, Redis and the GPU face service where the rooms look for them."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml
from aiohttp.test_utils import make_mocked_request

from broadcaster.admin import _public, create_app
from broadcaster.config import AdminConfig, WorkersConfig
from tests.deploy.deploy_support import (
    KUSTOMIZE,
    OVERLAYS,
    SHARED,
    by_name,
    container,
    crd_schema,
    one,
    render,
)

# The oldest Kubernetes still commonly run, and the newest the validator knows.
K8S_VERSIONS = ["1.29", kubernetes_validate.latest_version()]


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[dict[str, Any]]]:
    """Every kustomization a user applies (plus the base), rendered once for this module."""
    paths = {f"overlays/{o}": KUSTOMIZE / "overlays" / o for o in OVERLAYS}
    paths |= {s: KUSTOMIZE / s for s in SHARED}
    paths["base"] = KUSTOMIZE / "base"
    return {name: render(path) for name, path in paths.items()}


def test_there_are_two_room_overlays() -> None:
    assert len(OVERLAYS) >= 2, OVERLAYS


@pytest.mark.parametrize("version", K8S_VERSIONS)
def test_every_object_validates_against_its_schema(rendered, version: str) -> None:
    seen_crd = False
    for name, objs in rendered.items():
        assert objs, f"{name} rendered nothing"
        for obj in objs:
            where = f"{name}: {obj['kind']} {obj['metadata']['name']}"
            if obj["apiVersion"].startswith("monitoring.coreos.com/"):
                seen_crd = True
                try:
                    jsonschema.Draft202012Validator(crd_schema(obj)).validate(obj)
                except jsonschema.ValidationError as exc:
                    pytest.fail(f"{where}: {exc.message} at {list(exc.absolute_path)}")
            else:
                try:
                    kubernetes_validate.validate(obj, version, strict=True)
                except kubernetes_validate.ValidationError as exc:
                    pytest.fail(f"{where}: {exc.message} at {list(exc.path)} (Kubernetes {version})")
    assert seen_crd, "no PodMonitor/ServiceMonitor was rendered"


def test_the_crd_schemas_refuse_what_the_operator_refuses(rendered) -> None:
    """The repo's schemas are not vacuous: a missing selector, an unknown field, a wrong type all fail."""
    pm = one(rendered["overlays/" + OVERLAYS[0]], "PodMonitor")
    validator = jsonschema.Draft202012Validator(crd_schema(pm))
    assert validator.is_valid(pm)
    no_selector = {**pm, "spec": {k: v for k, v in pm["spec"].items() if k != "selector"}}
    unknown = {**pm, "spec": {**pm["spec"], "podMetricEndpoints": pm["spec"]["podMetricsEndpoints"]}}
    wrong_type = {**pm, "spec": {**pm["spec"], "podMetricsEndpoints": [{"port": 8717}]}}
    bad_interval = {**pm, "spec": {**pm["spec"], "podMetricsEndpoints": [{"port": "admin", "interval": "15"}]}}
    for bad in (no_selector, unknown, wrong_type, bad_interval):
        assert not validator.is_valid(bad), bad["spec"]


def _room(objs: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(the StatefulSet, its room container, the room config it reads) of a rendered overlay."""
    sts = one(objs, "StatefulSet")
    room = container(sts, "room")
    mount = next(m for m in room["volumeMounts"] if m["mountPath"] == "/etc/virtual-anchor")
    volume = next(v for v in sts["spec"]["template"]["spec"]["volumes"] if v["name"] == mount["name"])
    cm = by_name(objs, "ConfigMap", volume["configMap"]["name"])
    config_file = room["args"][room["args"].index("--config") + 1]
    assert config_file.startswith("/etc/virtual-anchor/"), config_file
    return sts, room, yaml.safe_load(cm["data"][config_file.removeprefix("/etc/virtual-anchor/")])


def _stream_secret(room: dict[str, Any]) -> tuple[str, str]:
    item = next(e for e in room["env"] if e["name"] == "VA_STREAM_URL")
    ref = item["valueFrom"]["secretKeyRef"]
    return ref["name"], ref["key"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_a_room_is_one_pod_that_never_overlaps_itself(rendered, overlay: str) -> None:
    objs = rendered[f"overlays/{overlay}"]
    assert not [o for o in objs if o["kind"] in ("Deployment", "ReplicaSet", "DaemonSet", "Pod")]
    sts = one(objs, "StatefulSet")
    assert sts["spec"]["replicas"] == 1
    # The old pod is gone before the new one starts (a StatefulSet never runs two pods of one ordinal).
    assert sts["spec"].get("podManagementPolicy", "OrderedReady") == "OrderedReady"
    assert sts["spec"]["updateStrategy"]["type"] == "RollingUpdate"
    assert not [o for o in objs if o["kind"] == "HorizontalPodAutoscaler"]
    # Its Service is the StatefulSet's governing service.
    assert sts["spec"]["serviceName"] == one(objs, "Service")["metadata"]["name"]


def test_no_two_rooms_share_a_stream_a_name_or_a_selector(rendered) -> None:
    seen_secret: dict[str, str] = {}
    seen_room: dict[str, str] = {}
    seen_names: dict[tuple[str, str], str] = {}
    labels: dict[str, dict[str, str]] = {}
    for overlay in OVERLAYS:
        objs = rendered[f"overlays/{overlay}"]
        sts, room, config = _room(objs)
        secret, _ = _stream_secret(room)  # a Secret of its own, whichever key
        assert "CHANGE-ME" not in secret, f"{overlay} still uses the base's placeholder stream Secret"
        assert secret not in seen_secret, f"{overlay} and {seen_secret[secret]} push with the same Secret {secret}"
        seen_secret[secret] = overlay
        # The stream URL in the config is that Secret's, and nothing else pushes anywhere.
        rtmp = [o for r in config["rooms"] for o in r.get("outputs", []) if o["type"] == "rtmp"]
        assert [o["url"] for o in rtmp] == ["${VA_STREAM_URL}"], rtmp
        for r in config["rooms"]:
            assert r["id"] not in seen_room, f"room id {r['id']} in {overlay} and {seen_room[r['id']]}"
            seen_room[r["id"]] = overlay
        for o in objs:
            key = (o["kind"], o["metadata"]["name"])
            assert key not in seen_names, f"{key} in {overlay} and {seen_names[key]}: one would overwrite the other"
            seen_names[key] = overlay
        labels[overlay] = sts["spec"]["template"]["metadata"]["labels"]
    # Each room's selectors (StatefulSet, Service, PodMonitor) match its own pod and no other room's.
    for overlay in OVERLAYS:
        objs = rendered[f"overlays/{overlay}"]
        selectors = [one(objs, "StatefulSet")["spec"]["selector"]["matchLabels"],
                     one(objs, "Service")["spec"]["selector"],
                     one(objs, "PodMonitor")["spec"]["selector"]["matchLabels"]]
        for selector in selectors:
            matches = {o for o, lab in labels.items() if selector.items() <= lab.items()}
            assert matches == {overlay}, (overlay, selector, matches)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_probes_are_the_public_health_paths_on_the_admin_port(rendered, overlay: str) -> None:
    _, room, config = _room(rendered[f"overlays/{overlay}"])
    port = next(p for p in room["ports"] if p["name"] == "admin")
    env = {e["name"]: e.get("value") for e in room["env"]}
    # The daemon listens where the probes knock: every interface, on the container's admin port.
    assert config["daemon"]["admin"]["host"] == "0.0.0.0"
    assert config["daemon"]["admin"]["port"] == "${VA_ADMIN_PORT}"
    assert env["VA_ADMIN_PORT"] == str(port["containerPort"])
    paths = {kind: room[kind]["httpGet"] for kind in ("readinessProbe", "livenessProbe", "startupProbe")}
    assert paths["readinessProbe"]["path"] == "/readyz"
    assert paths["livenessProbe"]["path"] == "/healthz"
    # The probes send no token: the paths must be public in the admin API, and served by it.
    app = create_app(SimpleNamespace(rooms={}, config=None), AdminConfig(), token="t")
    routes = {r.resource.canonical for r in app.router.routes() if r.method == "GET"}
    for kind, get in paths.items():
        assert get["port"] in ("admin", port["containerPort"]), (kind, get)
        assert get["path"] in routes, (kind, get["path"])
        request = make_mocked_request("GET", get["path"], app=app)
        assert _public(request), f"{kind} {get['path']} would need the admin token"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_config_is_a_whole_directory_mount_with_a_stable_name(rendered, overlay: str) -> None:
    objs = rendered[f"overlays/{overlay}"]
    sts, room, _ = _room(objs)
    spec = sts["spec"]["template"]["spec"]
    cm_volumes = {v["name"] for v in spec["volumes"] if "configMap" in v}
    assert len(cm_volumes) >= 2, "the config and the knowledge base come from ConfigMaps"
    for mount in room["volumeMounts"]:
        # A subPath mount is a copy: ConfigMap updates never reach it, and the live reload would never see them.
        assert "subPath" not in mount and "subPathExpr" not in mount, mount
        if mount["name"] in cm_volumes:
            assert mount.get("readOnly") is True
    for cm in (o for o in objs if o["kind"] == "ConfigMap"):
        assert not re.search(r"-[a-z0-9]{10}$", cm["metadata"]["name"]), f"hashed name {cm['metadata']['name']}"


def test_a_configmap_edit_changes_no_pod_template(tmp_path: Path) -> None:
    """Editing a room's config changes the ConfigMap's data only: its name and the pod template stay, so the
    StatefulSet does not replace the pod; the daemon reloads the swapped file (tests/deploy/…room_runs)."""
    copy = tmp_path / "kustomize"
    shutil.copytree(KUSTOMIZE, copy)
    overlay = OVERLAYS[0]
    before = render(copy / "overlays" / overlay)
    for rel in ("room/config.yaml", "room/kb/faq.yaml"):
        path = copy / "overlays" / overlay / rel
        path.write_text(path.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    after = render(copy / "overlays" / overlay)
    assert one(after, "StatefulSet") == one(before, "StatefulSet")
    changed = {o["metadata"]["name"] for o in after if o not in before}
    assert {o["metadata"]["name"] for o in before if o["kind"] == "ConfigMap"} == changed


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_state_dir_is_on_the_rooms_persistent_volume(rendered, overlay: str) -> None:
    sts, room, config = _room(rendered[f"overlays/{overlay}"])
    claims = {c["metadata"]["name"]: c for c in sts["spec"]["volumeClaimTemplates"]}
    env = {e["name"]: e.get("value") for e in room["env"]}
    state_dir = config["daemon"]["state_dir"].replace("${VA_STATE_DIR}", env["VA_STATE_DIR"])
    mount = next(m for m in room["volumeMounts"] if m["mountPath"] == state_dir)
    assert mount["name"] in claims, f"{state_dir} is on {mount['name']}, not a PersistentVolumeClaim"
    assert claims[mount["name"]]["spec"]["accessModes"] == ["ReadWriteOnce"]
    # Everything the room writes goes there (the audit, recordings) or to the pod's scratch /tmp.
    for r in config["rooms"]:
        written = [r.get("audit", {}).get("path", "")] + [o["path"] for o in r["outputs"] if o["type"] == "record"]
        assert all(p.startswith("${VA_STATE_DIR}/") for p in written if p), written


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_pod_runs_unprivileged_on_a_read_only_root(rendered, overlay: str) -> None:
    sts, room, _ = _room(rendered[f"overlays/{overlay}"])
    pod = sts["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] > 0
    assert pod["automountServiceAccountToken"] is False
    sc = room["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True and sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"] and "add" not in sc["capabilities"]
    assert "hostPath" not in str(pod["volumes"]), "a room without the face component mounts nothing of the node"
    # Sized from the measured figures: at least one 720p25 room's 0.4 cores requested, and a memory limit.
    assert _cores(room["resources"]["requests"]["cpu"]) >= 0.4
    assert "memory" in room["resources"]["limits"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_daemon_restarts_a_leaking_worker_before_the_pods_memory_limit(rendered, overlay: str) -> None:
    """A worker over daemon.workers.memory_limit_mb is restarted alone (its room back in seconds); above the
    pod's limit the OOM killer would pick a process, or the kubelet restart the pod and cut the stream."""
    _, room, config = _room(rendered[f"overlays/{overlay}"])
    limit_mb = config["daemon"].get("workers", {}).get("memory_limit_mb", WorkersConfig().memory_limit_mb)
    pod_mb = _mebibytes(room["resources"]["limits"]["memory"])
    # Beside the worker: the daemon and the spare worker kept warm (155 and 236 MB measured).
    assert limit_mb is not None and limit_mb + 400 <= pod_mb, (limit_mb, pod_mb)
    assert _mebibytes(room["resources"]["requests"]["memory"]) >= 770  # measured: 773 MB for the three


def test_rooms_find_the_shared_redis(rendered) -> None:
    objs = rendered["redis"]
    svc, dep = one(objs, "Service"), one(objs, "Deployment")
    assert dep["spec"]["replicas"] == 1 and dep["spec"]["strategy"]["type"] == "Recreate"
    pod_labels = dep["spec"]["template"]["metadata"]["labels"]
    assert svc["spec"]["selector"].items() <= pod_labels.items()
    redis = container(dep, "redis")
    assert "--maxmemory" in redis["args"], "a cache without a bound grows until the OOM killer stops it"
    for overlay in OVERLAYS:
        _, room, config = _room(rendered[f"overlays/{overlay}"])
        url = next(e["value"] for e in room["env"] if e["name"] == "VA_REDIS_URL")
        assert config["daemon"]["redis_url"].startswith("${VA_REDIS_URL")
        m = re.fullmatch(r"redis://([a-z0-9-]+):(\d+)/\d+", url)
        assert m, url
        assert m.group(1) == svc["metadata"]["name"]
        port = next(p for p in svc["spec"]["ports"] if p["port"] == int(m.group(2)))
        assert port["targetPort"] in [p["name"] for p in redis["ports"]] + [p["containerPort"] for p in redis["ports"]]


def test_the_face_service_is_a_gpu_daemonset_the_rooms_on_its_node_reach(rendered, tmp_path: Path) -> None:
    ds = one(rendered["face"], "DaemonSet")
    face = container(ds, "face")
    assert face["resources"]["requests"]["nvidia.com/gpu"] == face["resources"]["limits"]["nvidia.com/gpu"] >= 1
    pod = ds["spec"]["template"]["spec"]
    assert pod["nodeSelector"], "GPU nodes only"
    assert any(t["key"] == "nvidia.com/gpu" for t in pod["tolerations"])
    assert face["command"][:3] == ["python", "-m", "broadcaster.services.face"]
    face_env = {e["name"]: e.get("value") for e in face["env"]}
    services = {v["name"]: v["hostPath"]["path"] for v in pod["volumes"] if "hostPath" in v}
    face_mount = next(m for m in face["volumeMounts"] if m["mountPath"] == face_env["VA_SERVICES_DIR"])
    assert face_mount["name"] in services
    # A room with the face-client component runs on those nodes and sees the same folder at the same path.
    copy = tmp_path / "kustomize"
    shutil.copytree(KUSTOMIZE, copy)
    face_room = copy / "overlays" / "with-face"
    face_room.mkdir()
    (face_room / "kustomization.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
        "resources": [f"../{OVERLAYS[0]}"], "components": ["../../components/face-client"]}), encoding="utf-8")
    sts = one(render(face_room), "StatefulSet")
    room_pod = sts["spec"]["template"]["spec"]
    room = container(sts, "room")
    room_env = {e["name"]: e.get("value") for e in room["env"]}
    assert room_env["VA_FACE_SERVICES_DIR"] == face_env["VA_SERVICES_DIR"]
    assert "VA_SERVICES_DIR" not in room_env, "the pod's own services (a shared voice) stay private to the pod"
    room_mount = next(m for m in room["volumeMounts"] if m["mountPath"] == room_env["VA_FACE_SERVICES_DIR"])
    room_host = next(v["hostPath"]["path"] for v in room_pod["volumes"] if v["name"] == room_mount["name"])
    assert room_host == services[face_mount["name"]]
    assert room_pod["nodeSelector"].items() >= pod["nodeSelector"].items()
    assert "nvidia.com/gpu" not in str(room["resources"]), "the room shares the node's face service, no GPU of its own"
    assert one(render(face_room), "StatefulSet")["spec"]["replicas"] == 1


def test_the_podmonitor_feeds_the_existing_alerts(rendered) -> None:
    """job = the pod's app.kubernetes.io/name, which configs/prometheus/alerts.yml's up{job=~…} selects."""
    alerts = (KUSTOMIZE.parents[1] / "configs" / "prometheus" / "alerts.yml").read_text(encoding="utf-8")
    job_re = re.search(r'up\{job=~"([^"]+)"\}', alerts)
    assert job_re
    for overlay in OVERLAYS:
        objs = rendered[f"overlays/{overlay}"]
        pm, sts = one(objs, "PodMonitor"), one(objs, "StatefulSet")
        job = sts["spec"]["template"]["metadata"]["labels"][pm["spec"]["jobLabel"]]
        assert re.fullmatch(job_re.group(1), job), job
        endpoint = pm["spec"]["podMetricsEndpoints"][0]
        assert endpoint["path"] == "/metrics" and endpoint["port"] == "admin"


# ------------------------------------------------------------------------------------------------ helpers


def _mebibytes(q: str) -> float:
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "K": 1e3 / 2**20, "M": 1e6 / 2**20, "G": 1e9 / 2**20}
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]i?)?", q)
    assert m, q
    return float(m.group(1)) * (units[m.group(2)] if m.group(2) else 1 / 2**20)


def _cores(q: str) -> float:
    return float(q[:-1]) / 1000 if q.endswith("m") else float(q)
