#!/usr/bin/env bash
# Creates .venv and installs the project into it; with --test also the test tools and system packages.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=".venv/bin/python -m pip"
$PIP install -q --upgrade pip >/dev/null 2>&1 || true
if [ "${1:-}" = "--test" ]; then
  # torch first, pinned: the CPU build; anything that pulls torch later then finds it satisfied.
  $PIP install -q torch==2.13.0
  $PIP install -q -e '.[test,ml,face,english,asr-check]'
  # Coqui TTS beside the CPU torch: PyPI's torchaudio/torchcodec wheels link CUDA libraries. Installed
  # without their native libraries, torchaudio runs in pure-Python mode, which is all VITS/XTTS inference
  # uses; torchcodec is only checked for at import (audio is decoded with PyAV).
  $PIP install -q coqui-tts==0.28.0 six
  $PIP install -q --no-deps torchaudio==2.11.1 torchcodec==0.17.0
  # find_spec locates the package without importing it (the import is what fails while the .so files exist).
  ta_dir=$(.venv/bin/python -c 'import importlib.util as u, os; print(os.path.dirname(u.find_spec("torchaudio").origin))')
  rm -f "$ta_dir"/lib/*.so
  .venv/bin/python -c 'import torchaudio' || { echo "torchaudio still does not import" >&2; exit 1; }
  # The system packages of every program and file a test requires: tests/support/programs.py maps each
  # to its package here, and tests/ops/test_fresh_machine.py fails when one is missing from this list.
  TEST_APT_PACKAGES=(
    nginx libnginx-mod-rtmp                           # a real RTMP ingest
    fontconfig fonts-wqy-microhei fonts-dejavu-core   # the system-font fallback; a Latin-only font (no-CJK warning)
    systemd                                           # systemd-analyze verify/security, systemd-sysusers
    prometheus                                        # promtool
    chromium                                          # the console test (Playwright drives Debian's browser)
    openssl                                           # throwaway CAs for the TLS connector tests
    procps                                            # kill: the units' ExecReload
    dpkg                                              # dpkg-query: checks tests/support/programs.py's mapping
    util-linux mount                                  # setpriv (run as nobody), mount/umount (a tiny tmpfs)
    kubectl                                           # kubectl kustomize renders deploy/ (upstream's package)
  )
  need=()
  for pkg in "${TEST_APT_PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
  done
  if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      if [[ " ${need[*]} " == *" kubectl "* ]] && ! apt-cache show kubectl >/dev/null 2>&1; then
        # Debian's own kubernetes-client (1.20) bundles a kustomize too old for components and `labels:`;
        # kubectl comes from the Kubernetes project's apt repository.
        install -d -m 0755 /etc/apt/keyrings
        curl -fsSL https://pkgs.k8s.io/core:/stable:/v1.31/deb/Release.key | gpg --dearmor --yes -o /etc/apt/keyrings/kubernetes.gpg
        echo "deb [signed-by=/etc/apt/keyrings/kubernetes.gpg] https://pkgs.k8s.io/core:/stable:/v1.31/deb/ /" \
          > /etc/apt/sources.list.d/kubernetes.list
      fi
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
      # Not root (or not Debian): the tests that need these skip here, and fail under CI=true.
      echo "setup.sh: as root, apt-get install ${need[*]}" >&2
    fi
  fi
else
  $PIP install -q -e .
fi
