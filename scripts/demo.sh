#!/usr/bin/env bash
# Installs the daemon and runs the demo room; pass an RTMP URL to push there as well.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/virtual-anchor demo "$@"
