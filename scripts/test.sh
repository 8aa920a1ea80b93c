#!/usr/bin/env bash
# Installs everything the tests need, then runs the whole suite (slow end-to-end tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
.venv/bin/ruff check .
exec .venv/bin/python -m pytest -q "$@"
