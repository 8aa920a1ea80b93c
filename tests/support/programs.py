"""What tests need from the system: each external program or file a test requires, and its Debian package.

Tests ask through `require_program("nginx")` / `require_file(PATH)`, always with a literal name, so that
tests/ops/test_fresh_machine.py can collect every requirement from the test sources and check that
scripts/setup.sh installs its package. A test that needs something new adds it here and to setup.sh.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NoReturn

import pytest

# Program (as looked up on PATH) -> the Debian package scripts/setup.sh --test installs it from.
PROGRAMS = {
    "nginx": "nginx",  # a real RTMP ingest (with the module below)
    "systemd-analyze": "systemd",  # `verify` and `security` of the units
    "systemd-sysusers": "systemd",
    "promtool": "prometheus",  # alert rules and the scrape config
    "chromium": "chromium",  # the console, through Playwright
    "openssl": "openssl",  # throwaway CAs for the TLS connector tests
    "kill": "procps",  # copied into the units' test root: ExecReload names /bin/kill
    "fc-match": "fontconfig",  # the system-font fallback of the subtitle font lookup
    "fc-list": "fontconfig",
    "dpkg-query": "dpkg",  # checks this very mapping against the package database
    "setpriv": "util-linux",  # runs a command as nobody from a root test (CI runs as root)
    "mount": "mount",  # a tiny tmpfs: a full disk, a read-only mount
    "umount": "mount",
    # `kubectl kustomize` renders deploy/kustomize offline. The package is the Kubernetes project's
    # (pkgs.k8s.io apt repository); Debian's own kubernetes-client (1.20) is too old for Kustomize components.
    "kubectl": "kubectl",
}

# Files that are not programs, by absolute path -> their Debian package.
FILES = {
    "/usr/lib/nginx/modules/ngx_rtmp_module.so": "libnginx-mod-rtmp",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf": "fonts-dejavu-core",  # a Latin-only font
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc": "fonts-wqy-microhei",  # a system CJK font
}


def missing(message: str) -> NoReturn:
    """Something a test needs is not installed: fails under CI (any CI value but empty/0/false: setup must have
    installed it), skips on a developer machine."""
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        pytest.fail(message)
    pytest.skip(message)


def _missing(what: str, package: str) -> NoReturn:
    missing(f"{what} not found (scripts/setup.sh --test installs the Debian package {package})")


def require_program(name: str) -> str:
    """The program's path on PATH; `name` must be a key of PROGRAMS."""
    package = PROGRAMS[name]
    path = shutil.which(name)
    if path is None:
        _missing(f"the program {name!r}", package)
    return path


def require_file(path: str) -> Path:
    """The file; `path` must be a key of FILES."""
    package = FILES[path]
    if not Path(path).is_file():
        _missing(f"the file {path}", package)
    return Path(path)
