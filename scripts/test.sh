#!/usr/bin/env bash
# Installs everything the tests need, then runs the whole suite (slow end-to-end tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
.venv/bin/ruff check .
# Three workers on the 2-core CI machine: most tests wait on real-time streams rather than use a core (a fresh clone,
# 2732 tests: two workers 864 s, three 716 s). A file's tests stay on one worker (--dist loadfile): some share a
# module's daemon and what it answered. VA_TEST_WORKERS=0 runs in one process (what -x and pdb want).
exec .venv/bin/python -m pytest -q -n "${VA_TEST_WORKERS:-3}" --dist loadfile --durations=15 "$@"
