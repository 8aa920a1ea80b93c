"""danmaku/ stands alone: it imports nothing from broadcaster/ (the daemon passes in what it needs)."""

from __future__ import annotations

import ast
from pathlib import Path

DANMAKU = Path(__file__).resolve().parents[2] / "danmaku"


def test_danmaku_imports_nothing_from_broadcaster() -> None:
    offenders = []
    for path in sorted(DANMAKU.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.relative_to(DANMAKU.parent)}:{node.lineno} {n}" for n in names
                          if n == "broadcaster" or n.startswith("broadcaster.")]
    assert not offenders, offenders
