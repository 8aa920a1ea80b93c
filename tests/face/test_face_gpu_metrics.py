"""GPU metrics from NVML (a fake pynvml stands in for a GPU): the figures, one exporter per host (no series twice in
the daemon's merged scrape), no series and one log line without NVML, the face row of the dashboard, the alerts."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import types
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from broadcaster import gpu_metrics, metrics
from broadcaster.gpu_metrics import FAMILIES, GpuCollector
from tests.support.programs import require_program

ROOT = Path(__file__).resolve().parents[2]
GPU_ALERTS = ROOT / "configs/prometheus/gpu_alerts.yml"
DASHBOARD = ROOT / "configs/grafana/dashboards/virtual-anchor.json"


class NVMLError(Exception):
    pass


def fake_nvml(gpus: list[dict]) -> types.ModuleType:
    """pynvml's calls the collector makes, answering for `gpus` (dicts of name, util %, used, total, temp, mW)."""
    nv = types.ModuleType("pynvml")
    nv.NVML_TEMPERATURE_GPU = 0
    nv.NVMLError = NVMLError
    nv.calls = 0

    def init() -> None:
        nv.calls += 1

    def handle(i: int) -> dict:
        return gpus[i]

    def power(h: dict) -> int:
        if h.get("mW") is None:
            raise NVMLError("Not Supported")
        return h["mW"]

    nv.nvmlInit = init
    nv.nvmlDeviceGetCount = lambda: len(gpus)
    nv.nvmlDeviceGetHandleByIndex = handle
    nv.nvmlDeviceGetName = lambda h: h["name"]
    nv.nvmlDeviceGetUtilizationRates = lambda h: types.SimpleNamespace(gpu=h["util"], memory=0)
    nv.nvmlDeviceGetMemoryInfo = lambda h: types.SimpleNamespace(used=h["used"], total=h["total"], free=0)
    nv.nvmlDeviceGetTemperature = lambda h, sensor: h["temp"]
    nv.nvmlDeviceGetPowerUsage = power
    return nv


GPUS = [
    {"name": b"NVIDIA H200", "util": 87, "used": 120 << 30, "total": 141 << 30, "temp": 64, "mW": 512_000},
    {"name": "NVIDIA L4", "util": 3, "used": 1 << 30, "total": 24 << 30, "temp": 41, "mW": None},  # no power sensor
]


def _samples(families) -> dict[tuple[str, str], float]:
    return {(s.name, s.labels["gpu"]): s.value for f in families for s in f.samples}


def test_the_figures_of_every_gpu() -> None:
    got = _samples(GpuCollector(fake_nvml(GPUS)).collect())
    assert got[("va_gpu_utilization_ratio", "0")] == pytest.approx(0.87)
    assert got[("va_gpu_memory_used_bytes", "0")] == 120 << 30 and got[("va_gpu_memory_total_bytes", "1")] == 24 << 30
    assert got[("va_gpu_temperature_celsius", "1")] == 41
    assert got[("va_gpu_power_watts", "0")] == 512.0
    assert ("va_gpu_power_watts", "1") not in got  # not supported there: left out, not a zero
    names = {s.labels["name"] for f in GpuCollector(fake_nvml(GPUS)).collect() for s in f.samples}
    assert names == {"NVIDIA H200", "NVIDIA L4"}


def test_without_nvml_there_is_no_series_and_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    broken = fake_nvml(GPUS)

    def no_driver() -> None:
        raise NVMLError("NVML Shared Library Not Found")

    broken.nvmlInit = no_driver
    for collector in (GpuCollector(broken), GpuCollector()):  # a stand-in without a driver; this machine's own
        with caplog.at_level(logging.INFO, logger="broadcaster.gpu_metrics"):
            caplog.clear()
            for _ in range(3):
                fams = list(collector.collect())
        assert [f.name for f in fams] == list(FAMILIES) and not any(f.samples for f in fams)
        lines = [r.getMessage() for r in caplog.records]
        assert len(lines) == 1 and "NVML is not available" in lines[0], lines


def test_the_daemons_scrape_has_each_gpu_series_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon exports the host's GPUs; a room worker's copy (were one to export them) is not merged in."""
    monkeypatch.setattr(gpu_metrics, "HOST", GpuCollector(fake_nvml(GPUS)))
    worker = ('# HELP va_gpu_memory_used_bytes x\n# TYPE va_gpu_memory_used_bytes gauge\n'
              'va_gpu_memory_used_bytes{gpu="0",name="NVIDIA H200"} 5.0\n'
              '# HELP va_frames_total x\n# TYPE va_frames_total counter\nva_frames_total{room="w1"} 3.0\n')
    text = metrics.exposition([worker, worker]).decode()
    series = re.findall(r"^(va_gpu_\w+\{[^}]*\})", text, re.M)
    assert len(series) == len(set(series)) == 9  # 5 figures x 2 GPUs, less the L4's power
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    used = [s.value for s in fams["va_gpu_memory_used_bytes"].samples if s.labels["gpu"] == "0"]
    assert used == [120 << 30]  # the host's figure, not the worker's 5.0
    assert 'va_frames_total{room="w1"} 3.0' in text


@pytest.mark.slow
def test_a_running_daemons_metrics_show_the_gpus_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The real daemon with a room in its worker process: /metrics carries the host's GPU series, each once."""
    from tests.ops.ops_support import DaemonThread, request, small_room, wait_for, write_config

    nv = fake_nvml(GPUS)
    monkeypatch.setattr(gpu_metrics, "HOST", GpuCollector(nv))
    cfg = write_config(tmp_path / "config.yaml", rooms=[small_room("g1", [{"type": "record",
                                                                          "path": str(tmp_path / "g1.flv")}])])
    d = DaemonThread(cfg).start()
    try:
        assert wait_for(lambda: d.room("g1").status()["frames"] > 5, 30)
        body = request("GET", d.url + "/metrics")[2].decode()
    finally:
        d.stop()
    fams = {f.name: f for f in text_string_to_metric_families(body)}
    gpu = [(f, tuple(sorted(s.labels.items()))) for f in FAMILIES for s in fams[f].samples]
    assert len(gpu) == len(set(gpu)) == 9 and nv.calls == 1
    assert any(s.labels.get("room") == "g1" for s in fams["va_frames"].samples)  # the worker's series merged too


def test_the_face_row_shows_the_gpus() -> None:
    dash = json.loads(DASHBOARD.read_text())
    panels = dash["panels"]
    rows = [p for p in panels if p["type"] == "row"]
    face = next(r for r in rows if r["title"].startswith("Neural face"))
    after = min((r["gridPos"]["y"] for r in rows if r["gridPos"]["y"] > face["gridPos"]["y"]), default=10**6)
    in_row = [p for p in panels if face["gridPos"]["y"] < p["gridPos"]["y"] < after]
    exprs = " ".join(t["expr"] for p in in_row for t in p.get("targets", []))
    for family in FAMILIES:
        assert family in exprs, f"the face row has no panel for {family}"


def test_gpu_alerts_fire_when_they_should() -> None:
    promtool = require_program("promtool")
    res = subprocess.run([promtool, "check", "rules", str(GPU_ALERTS)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and "SUCCESS: 2 rules found" in res.stdout, res.stdout + res.stderr
    res = subprocess.run([promtool, "test", "rules", str(Path(__file__).parent / "gpu_rules_test.yml")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "SUCCESS" in res.stdout, res.stdout + res.stderr
    rules = [r for g in yaml.safe_load(GPU_ALERTS.read_text())["groups"] for r in g["rules"]]
    assert {r["alert"] for r in rules} == {"VirtualAnchorGpuMemoryNearFull", "VirtualAnchorGpuHot"}
    # Every series they read is one the daemon declares (with a GPU or not).
    declared = {f.name for f in text_string_to_metric_families(metrics.exposition([]).decode())}
    for r in rules:
        assert set(re.findall(r"va_\w+", r["expr"])) <= declared, r["expr"]
    prom = yaml.safe_load((ROOT / "configs/prometheus/prometheus.yml").read_text())
    assert "gpu_alerts.yml" in prom["rule_files"]
