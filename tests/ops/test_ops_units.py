"""The systemd units pass `systemd-analyze verify` and keep their hardening (exposure score) and watchdog."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest
from ops_support import ROOT

from tests.support.programs import require_program

UNITS = ROOT / "systemd"
NAMES = ("virtual-anchor.service", "virtual-anchor@.service", "virtual-anchor-rooms.target")


@pytest.fixture(scope="module")
def unit_root(tmp_path_factory) -> Path:
    """A root file system holding the units, systemd's own units, and the binaries ExecStart names.

    `verify` checks that every Exec* binary exists and that dependencies resolve; on a build host the
    package is not installed system-wide, so the project's installed entry point is copied in.
    """
    require_program("systemd-analyze")
    root = tmp_path_factory.mktemp("root")
    (root / "etc/systemd/system").mkdir(parents=True)
    (root / "usr/lib/systemd").mkdir(parents=True)
    (root / "usr/bin").mkdir(parents=True)
    (root / "bin").mkdir(parents=True)
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)
    entry = ROOT / ".venv/bin/virtual-anchor"
    assert entry.exists(), "install the project first (scripts/setup.sh): the units run its entry point"
    shutil.copy(entry, root / "usr/bin/virtual-anchor")
    shutil.copy(require_program("kill"), root / "bin/kill")
    for name in NAMES:
        shutil.copy(UNITS / name, root / "etc/systemd/system" / name)
    return root


def _verify(root: Path, *units: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["systemd-analyze", "verify", "--man=no", f"--root={root}", *units],
        capture_output=True, text=True, timeout=60,
    )


def test_units_verify_clean(unit_root):
    res = _verify(unit_root, "virtual-anchor.service", "virtual-anchor@shop1.service", "virtual-anchor-rooms.target")
    # verify exits 0 on many problems and only warns, so any output at all is a failure.
    assert res.returncode == 0 and res.stdout + res.stderr == "", res.stdout + res.stderr


def test_verify_would_catch_a_broken_unit(unit_root):
    text = (UNITS / "virtual-anchor.service").read_text().replace("Type=notify", "Type=notfy")
    (unit_root / "etc/systemd/system/broken.service").write_text(text)
    res = _verify(unit_root, "broken.service")
    assert "notfy" in res.stdout + res.stderr


@pytest.mark.parametrize("unit", ["virtual-anchor.service", "virtual-anchor@shop1.service"])
def test_hardening_exposure_stays_ok(unit_root, unit):
    # --threshold is on systemd's 0–100 scale: 30 means "OK" (≤ 3.0) or better; today it is 1.8.
    res = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", f"--root={unit_root}", "--threshold=30", "--no-pager", unit],
        capture_output=True, text=True, timeout=60,
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr


def _service(name: str) -> configparser.SectionProxy:
    cp = configparser.ConfigParser(strict=False, interpolation=None)
    cp.optionxform = str  # type: ignore[assignment,method-assign]
    cp.read_string((UNITS / name).read_text())
    return cp["Service"]


@pytest.mark.parametrize("name", ["virtual-anchor.service", "virtual-anchor@.service"])
def test_notify_watchdog_restart_and_sandbox(name):
    s = _service(name)
    assert s["Type"] == "notify" and s["NotifyAccess"] == "main"
    assert s["WatchdogSec"] and s["Restart"] == "on-failure"
    assert s["User"] == "virtual-anchor" and s["NoNewPrivileges"] == "yes"
    assert s["ProtectSystem"] == "strict" and s["ProtectHome"] == "yes" and s["PrivateTmp"] == "yes"
    rw = s["ReadWritePaths"].split()
    assert any("recordings" in p for p in rw) and any("/var/cache/" in p for p in rw) and any("/var/log/" in p for p in rw)
    assert s["EnvironmentFile"].startswith("-/etc/virtual-anchor/")
    assert "--config" in s["ExecStart"]


def test_template_runs_one_room_per_instance():
    s = _service("virtual-anchor@.service")
    assert "%i" in s["ExecStart"] and "%i" in s["StateDirectory"] and "%i" in s["ReadWritePaths"]


def test_sysusers_declares_the_service_user(tmp_path):
    require_program("systemd-sysusers")
    res = subprocess.run(
        ["systemd-sysusers", "--dry-run", f"--root={tmp_path}", str(UNITS / "virtual-anchor.sysusers.conf")],
        capture_output=True, text=True, timeout=30,
    )
    assert res.returncode == 0, res.stderr
    assert "Creating user 'virtual-anchor'" in res.stdout + res.stderr
