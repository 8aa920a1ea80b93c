"""Alerts and dashboard against a live scrape: promtool checks, rule unit tests, every query names a real metric."""

from __future__ import annotations

import json
import re
import subprocess
import warnings

import pytest
import yaml
from ops_support import ROOT, DaemonThread, request, small_room, wait_for, write_config
from prometheus_client.parser import text_string_to_metric_families

from tests.support.programs import require_program

ALERTS = ROOT / "configs/prometheus/alerts.yml"
SCRAPE_CONFIG = ROOT / "configs/prometheus/prometheus.yml"
RULE_TESTS = ROOT / "tests/ops/prometheus_rules_test.yml"
DASHBOARD = ROOT / "configs/grafana/dashboards/virtual-anchor.json"
PROVISIONING = ROOT / "configs/grafana/provisioning"

# Series Prometheus makes itself, not the daemon.
PROMETHEUS_OWN = {"up"}
_KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool",
             "offset", "inf", "nan"}


def metric_names(expr: str) -> set[str]:
    """The series names a PromQL expression selects (functions, keywords, labels and variables removed)."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # string literals
    e = re.sub(r"\{[^}]*\}", "", e)  # label matchers
    e = re.sub(r"\[[^\]]*\]", "", e)  # range selectors
    e = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    e = re.sub(r"\$\{?\w+\}?", " ", e)  # Grafana variables ($room, $__rate_interval)
    names = set()
    for m in re.finditer(r"(?<![\w.])[A-Za-z_:][A-Za-z0-9_:]*", e):
        if e[m.end():].lstrip().startswith("("):
            continue  # a function call
        if m.group(0).lower() not in _KEYWORDS:
            names.add(m.group(0))
    return names


def sample_names(scrape: str) -> set[str]:
    """Every series name the scrape declares, with the suffixes each family type really exposes."""
    names: set[str] = set()
    for fam in text_string_to_metric_families(scrape):
        suffixes = {"counter": ["_total", "_created"], "histogram": ["_bucket", "_sum", "_count", "_created"],
                    "summary": ["_sum", "_count", "_created", ""], "gauge": [""]}.get(fam.type, [""])
        names.update(fam.name + s for s in suffixes)
        names.update(s.name for s in fam.samples)
    return names


def dashboard_queries() -> list[tuple[str, str]]:
    dash = json.loads(DASHBOARD.read_text())
    out = [(p["title"], t["expr"]) for p in dash["panels"] for t in p.get("targets", [])]
    for var in dash["templating"]["list"]:
        if var["type"] == "query":
            m = re.fullmatch(r"label_values\((\w+),\s*(\w+)\)", var["query"]["query"])
            assert m, var["query"]
            out.append((f"${var['name']}", m.group(1)))
    return out


def alert_queries() -> list[tuple[str, str]]:
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    return [(r["alert"], r["expr"]) for g in groups for r in g["rules"]]


@pytest.fixture(scope="module")
def scrape(tmp_path_factory) -> str:
    """/metrics of a running daemon with a room streaming to a recording."""
    tmp = tmp_path_factory.mktemp("prom")
    cfg = write_config(tmp / "config.yaml", rooms=[small_room("r1", [{"type": "record", "path": str(tmp / "r1.flv")}])])
    d = DaemonThread(cfg).start()
    try:
        assert wait_for(lambda: d.room("r1").status()["frames"] > 25, 30)
        status, headers, body = request("GET", d.url + "/metrics")
        assert status == 200 and headers["content-type"].startswith("text/plain; version=0.0.4")
        return body.decode()
    finally:
        d.stop()


def test_promtool_check_metrics_on_a_live_scrape(scrape):
    promtool = require_program("promtool")
    res = subprocess.run([promtool, "check", "metrics"], input=scrape, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and not res.stdout.strip() and not res.stderr.strip(), res.stdout + res.stderr
    assert 'va_frames_total{room="r1"}' in scrape and "va_process_resident_memory_bytes " in scrape


def test_promtool_check_rules_and_config():
    promtool = require_program("promtool")
    res = subprocess.run([promtool, "check", "rules", str(ALERTS)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and "SUCCESS: 13 rules found" in res.stdout, res.stdout + res.stderr
    res = subprocess.run([promtool, "check", "config", str(SCRAPE_CONFIG)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr


def test_alert_rules_fire_when_they_should():
    promtool = require_program("promtool")
    res = subprocess.run([promtool, "test", "rules", str(RULE_TESTS)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "SUCCESS" in res.stdout, res.stdout + res.stderr


def test_alerts_cover_what_the_operator_asked_for():
    names = {a for a, _ in alert_queries()}
    assert {"VirtualAnchorStreamDown", "VirtualAnchorSinkReconnectLoop", "VirtualAnchorChatSilent",
            "VirtualAnchorAnswerLatencyHigh", "VirtualAnchorLateFrames", "VirtualAnchorMemoryGrowth"} <= names


@pytest.mark.parametrize(("where", "query"), dashboard_queries() + alert_queries())
def test_every_query_names_an_exported_metric(scrape, where, query):
    exported = sample_names(scrape) | PROMETHEUS_OWN
    names = metric_names(query)
    assert names, f"{where}: no metric found in {query!r}"
    missing = names - exported
    assert not missing, f"{where}: {sorted(missing)} not in the daemon's /metrics"


def test_the_query_check_catches_a_typo(scrape):
    exported = sample_names(scrape)
    assert metric_names('sum by (room) (rate(va_frame_total{room=~"$room"}[$__rate_interval]))') - exported == {
        "va_frame_total"}
    assert metric_names("histogram_quantile(0.9, sum by (le) (rate(va_render_seconds_bucket[5m])))") <= exported
    assert metric_names("va_render_seconds") - exported == {"va_render_seconds"}  # a histogram has no bare series


# What the issue asks the dashboard to show (families, before prometheus_client's suffixes).
REQUIRED_ON_DASHBOARD = {
    "va_frames", "va_late_frames", "va_render_seconds", "va_encode_seconds", "va_av_offset_seconds",
    "va_clock_last_tick_timestamp_seconds", "va_sink_connected", "va_sink_reconnects", "va_sink_bytes",
    "va_sink_dropped_packets", "va_events", "va_drops", "va_line_queue_depth", "va_answer_latency_seconds",
    "va_cache_hits", "va_cache_misses", "va_llm_time_to_first_token_seconds", "va_llm_errors",
    "va_tts_real_time_factor", "va_moderation_blocks", "va_source_up", "va_source_last_message_age_seconds",
    "va_process_resident_memory_bytes",
}


def _shown(family: str, used: set[str]) -> bool:
    return any(u == family or u.startswith(family + "_") for u in used)


def test_dashboard_shows_every_metric_the_issue_names(scrape):
    used = set().union(*(metric_names(q) for _, q in dashboard_queries()))
    families = {f.name for f in text_string_to_metric_families(scrape)}
    assert families >= REQUIRED_ON_DASHBOARD, "the daemon exports what the dashboard is asked to show"
    assert not {f for f in REQUIRED_ON_DASHBOARD if not _shown(f, used)}
    # Metrics added later by other areas are welcome on the dashboard too; say which lack a panel.
    families = {f for f in families if not (f.endswith("_created") and f.removesuffix("_created") in families)}
    unshown = sorted(f for f in families if not _shown(f, used))
    if unshown:
        warnings.warn(f"metrics with no dashboard panel yet: {unshown}", stacklevel=1)


def test_dashboard_layout_and_datasource():
    dash = json.loads(DASHBOARD.read_text())
    assert dash["uid"] == "virtual-anchor" and dash["schemaVersion"] >= 36
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids))
    cells: set[tuple[int, int]] = set()
    for p in dash["panels"]:
        g = p["gridPos"]
        assert g["x"] >= 0 and g["x"] + g["w"] <= 24
        area = {(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])}
        assert not area & cells, f"panel {p['title']!r} overlaps another"
        cells |= area
        if p["type"] != "row":
            assert p["datasource"] == {"type": "prometheus", "uid": "${datasource}"} and p["targets"]
    ds = yaml.safe_load((PROVISIONING / "datasources/virtual-anchor.yml").read_text())["datasources"][0]
    assert ds["type"] == "prometheus" and ds["url"].startswith("http://")
    prov = yaml.safe_load((PROVISIONING / "dashboards/virtual-anchor.yml").read_text())["providers"][0]
    assert prov["type"] == "file" and prov["options"]["path"]
